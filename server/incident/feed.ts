// The incident topic of the live channel: a coalesced signal (at most every 500 ms) to the
// cluster's watchers when anything the view reads changes — a node's readiness,
// taints or schedulability, any pod, a workload's replicas, a NodeFence or FencePolicy, the
// fencing controller's held list, a VolumeAttachment, an Incident — or when the sampler's counts moved
// (time alone turns a node suspect). The page then refetches incident.view. Nothing polls.
import type { NodeView, PodView } from '../../lib/console/protocol.js';
import type { FencingService } from '../fencing/service.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Feed, LiveChannel } from '../realtime/live.js';
import type { IncidentService } from './service.js';

/** What the view reads of a pod: not its resourceVersion (the update trigger's pod changes every second) */
const podSignature = (p: PodView) =>
  `${p.uid}|${p.node ?? ''}|${p.state}|${p.phase ?? ''}|${p.ready}|${p.deletionTimestamp ?? ''}|${p.claims.join(',')}`;

const nodeSignature = (n: NodeView) =>
  `${n.ready}|${n.unschedulable}|${n.taints.map((t) => `${t.key}:${t.effect}`).join(',')}`;

export class IncidentFeed {
  private readonly feed: Feed;

  constructor(
    channel: LiveChannel,
    clusters: readonly ClusterConnection[],
    incident: IncidentService,
    fencing: FencingService | undefined,
    coalesceMs = 500,
  ) {
    this.feed = channel.feed({ topic: 'incident', clusters: clusters.map((c) => c.id), coalesceMs });
    for (const conn of clusters) this.follow(conn);
    for (const [cluster, c] of fencing?.controllers ?? []) {
      const mark = () => this.feed.mark(cluster);
      for (const inf of [c.informers.fences, c.informers.policies])
        inf.on({ add: mark, update: mark, delete: mark });
      c.onViewChange(mark);
    }
    incident.onSituationChange((cluster) => this.feed.mark(cluster));
    // the incident record: declared, followed or changed by a person (here or on another replica)
    for (const [cluster, inf] of incident.informers) {
      const mark = () => this.feed.mark(cluster);
      inf.on({ add: mark, update: mark, delete: mark });
    }
  }

  private follow(conn: ClusterConnection) {
    const mark = () => this.feed.mark(conn.id);
    const any = { add: mark, update: mark, delete: mark };
    const { statefulSets, deployments, volumeAttachments } = conn.informers;
    for (const inf of [statefulSets, deployments, volumeAttachments]) inf.on(any);
    // a node's heartbeat changes its view every few seconds, some pods' status every second:
    // only a change of what the view reads counts
    const seen = { nodes: new Map<string, string>(), pods: new Map<string, string>() };
    conn.cache.onChange((kind, key, view) => {
      const sig = !view
        ? ''
        : kind === 'pods'
          ? podSignature(view as PodView)
          : nodeSignature(view as NodeView);
      const known = seen[kind];
      if (known.get(key) === sig) return;
      if (sig) known.set(key, sig);
      else known.delete(key);
      mark();
    });
  }

  stop() {
    this.feed.stop();
  }
}
