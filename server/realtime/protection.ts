// The protection topic of the live channel: on any protector change, decision or history point,
// a coalesced signal naming the protectors that changed ("namespace/name"), so pages refetch
// just those over tRPC. Nothing polls. A person who may list PodProtectors in some namespaces
// (of the core cluster, where they live) only hears of those. The protectors span the core and
// its cells, and every page shows them: each cluster's watchers hear every signal.
import type { ClusterId } from '../../lib/console/protocol.js';
import type { AccessReviews } from '../auth/access.js';
import type { ProtectionService } from '../protection/service.js';
import type { LiveChannel } from './live.js';
import { namespaceScope } from './scope.js';

export function followProtection(
  channel: LiveChannel,
  svc: ProtectionService,
  access: AccessReviews,
  clusters: readonly ClusterId[],
) {
  const feed = channel.feed({
    topic: 'protection',
    clusters,
    scope: async (socket) => {
      const identity = socket.data.identity;
      if (!identity) return { kind: 'denied', message: 'sign in first' };
      return namespaceScope(
        access,
        identity,
        svc.core.id,
        { group: 'podseidon.kubewharf.io', resource: 'podprotectors', namespaced: true },
        () => svc.store.all().map((e) => e.protector.metadata.namespace ?? ''),
      );
    },
  });
  const mark = (key: string) => {
    for (const c of clusters) feed.mark(c, key);
  };
  svc.store.onChange(mark);
  const off = svc.decisions.onEntry((_kind, key) => mark(key));
  return { feed, stop: () => (off(), feed.stop()) };
}
