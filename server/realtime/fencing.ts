// The fencing topic of the live channel: any NodeFence or FencePolicy change (or a node's
// conditions, which move the fences a policy will start) signals the cluster's watchers, and the
// pages refetch fencing.* over tRPC. Nothing polls.
import type { FencingService } from '../fencing/service.js';
import type { LiveChannel } from './live.js';

const conditionStatuses = (n: { conditions: { type: string; status: string }[] }) =>
  n.conditions.map((c) => `${c.type}=${c.status}`).join(',');

export function followFencing(channel: LiveChannel, svc: FencingService) {
  const feed = channel.feed({ topic: 'fencing', clusters: svc.controllers.keys() });
  for (const [cluster, c] of svc.controllers) {
    const mark = () => feed.mark(cluster);
    for (const inf of [c.informers.fences, c.informers.policies])
      inf.on({ add: mark, update: mark, delete: mark });
    c.onViewChange(mark);
    // a node's conditions changing status moves its upcoming fence ("fenced automatically in N s");
    // heartbeats alone (the same statuses) do not
    c.informers.nodes.on({
      add: mark,
      delete: mark,
      update: (n, old) => {
        if (conditionStatuses(n) !== conditionStatuses(old)) mark();
      },
    });
  }
  return feed;
}
