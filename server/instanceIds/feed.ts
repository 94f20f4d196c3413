// The instance-ids topic of the live channel: signals a cluster's instance-IDs page when anything
// it shows may have changed — a workload's map, replicas or opt-in, a pod of a namespace holding
// such a workload, and on the embedded cluster an ID taken or given back in the ground truth —
// coalesced (at most every 250 ms), so the page refetches instanceIds.* over tRPC. The signal
// carries no data: what the person may see is decided by the query. Nothing polls.
import type { WorkloadView } from '../../lib/console/views.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Feed, LiveChannel } from '../realtime/live.js';
import { followTruth, type InfraStream } from '../kube/infraStream.js';

const TRUTH_EVENTS = new Set(['instance-id-held', 'instance-id-dropped']);

const tracked = (w: WorkloadView | undefined) =>
  !!w && (w.instanceIds !== undefined || !!w.instanceIdsEnabled);
const signature = (w: WorkloadView | undefined) =>
  tracked(w) ? `${w!.instanceIds}|${w!.instanceIdsEnabled}|${w!.replicas}|${w!.readyReplicas}` : '';

export class InstanceIdsFeed {
  private readonly feed: Feed;
  private readonly streams: InfraStream[] = [];

  constructor(channel: LiveChannel, clusters: Map<string, ClusterConnection>, coalesceMs = 250) {
    this.feed = channel.feed({ topic: 'instance-ids', clusters: clusters.keys(), coalesceMs });
    for (const conn of clusters.values()) this.follow(conn);
  }

  private follow(conn: ClusterConnection) {
    const mark = () => this.feed.mark(conn.id);
    /** namespace -> tracked workloads in it (their pods matter) */
    const namespaces = new Map<string, Set<string>>();
    const workload = (next: WorkloadView | undefined, old: WorkloadView | undefined) => {
      const w = next ?? old!;
      const key = `${w.kind}/${w.name}`;
      const set = namespaces.get(w.namespace) ?? new Set<string>();
      if (tracked(next)) set.add(key);
      else set.delete(key);
      if (set.size) namespaces.set(w.namespace, set);
      else namespaces.delete(w.namespace);
      if (signature(next) !== signature(old)) mark();
    };
    for (const inf of [conn.informers.deployments, conn.informers.statefulSets])
      inf.on({
        add: (w) => workload(w, undefined),
        update: (w, old) => workload(w, old),
        delete: (old) => workload(undefined, old),
      });
    conn.cache.onChange((kind, key) => {
      if (kind === 'pods' && namespaces.has(key.slice(0, key.indexOf('/')))) mark();
    });
    if (!conn.spec.infra) return;
    this.streams.push(followTruth(conn.spec.infra, (e) => TRUTH_EVENTS.has(e.type), mark));
  }

  stop() {
    this.feed.stop();
    for (const s of this.streams) s.stop();
  }
}
