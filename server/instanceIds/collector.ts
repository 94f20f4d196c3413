// The instance-ID garbage collector: a loop on the controller runtime (leader only) that drops
// the map entries of pods known to have stopped (lib/guard/stopped.ts: not merely gone from the
// API or Terminating — its kubelet confirmed the end, or its node is fenced, booted again or
// gone), so a workload whose pods died without releasing (a node lost, a SIGKILL) does not
// carry stale entries until its map fills. It sweeps the console's caches every so often for
// candidates: an entry the watches already judge stopped, or one seen stale (gone, terminating,
// finished) in two sweeps in a row. A candidate workload is collected through the
// compare-and-swap the pods' own requests use (server/instanceIds/cas.ts): its holders judged
// again from live reads, written conditionally on the workload's resourceVersion, with the
// term's kubeconfig (no write once this console stops leading). Only opted-in workloads in the
// namespaces palisade.yaml lists. Jobs are not watched by the console: theirs are collected
// when their maps fill.
import { instanceIdRows } from '../../lib/instanceIds/rows.js';
import type { WorkloadKind } from '../../lib/instanceIds/types.js';
import { done, requeueAfter } from '../../lib/runtime/result.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { orSpecial, type WorkloadKey, workloadKey } from '../../lib/runtime/keys.js';
import { InstanceIdCas } from './cas.js';
import { holderFactsOf } from './holderFacts.js';
import { parseHolderRecords } from '../../lib/instanceIds/holders.js';
import { namespaceEnabled } from '../../lib/instanceIds/scope.js';

/** the key that looks at every workload; every other key is one workload's */
const SWEEP = '*';
type CollectorKey = typeof SWEEP | WorkloadKey<WorkloadKind>;
const COLLECTOR_KEY = orSpecial(SWEEP, workloadKey<WorkloadKind>());
/** how often the caches are swept (default): stale entries go within one to two of these */
export const SWEEP_EVERY_MS = 30_000;

export type CollectorWait = 'sweep';

export class InstanceIdCollector {
  readonly loop: Loop<CollectorKey, CollectorWait>;
  private cas: InstanceIdCas | undefined;
  private readonly log: Logger;
  /** entries dropped since start */
  dropped = 0;

  /** workload key -> its stale entries at the last sweep */
  private suspects = new Map<string, Set<string>>();

  constructor(
    private readonly conn: ClusterConnection,
    logger?: Logger,
    private readonly everyMs = SWEEP_EVERY_MS,
    /** palisade.yaml instanceIds.namespaces: where it may write */
    private readonly namespaces: readonly string[] = ['*'],
  ) {
    this.log = component('instance-ids', { cluster: conn.id }, logger);
    this.loop = new Loop<CollectorKey, CollectorWait>({
      name: 'instance-id-collector',
      key: COLLECTOR_KEY,
      begin: (term, loop) => {
        this.cas = new InstanceIdCas(
          term.kc(conn.spec.kc),
          { namespaces: this.namespaces },
          this.log,
          holderFactsOf(conn),
        );
        this.suspects.clear();
        loop.enqueue(SWEEP);
      },
      reconcile: (key) => (key === SWEEP ? this.sweep() : this.collect(key)),
      end: () => {
        this.cas = undefined;
      },
      backoff: { baseMs: 1_000, maxMs: 30_000 },
      logger,
    });
  }

  /** A tracked workload whose same entries were stale at the last sweep too gets its own key. */
  private async sweep() {
    const { deployments, statefulSets, replicaSets } = this.conn.informers;
    const rows = instanceIdRows({
      workloads: [...deployments.values(), ...statefulSets.values()],
      replicaSets: replicaSets.values(),
      pods: this.conn.cache.podList(),
    });
    const now = new Map<string, Set<string>>();
    const facts = holderFactsOf(this.conn);
    for (const r of rows) {
      if (!r.valid || !r.stale.length || !r.enabled || !namespaceEnabled(this.namespaces, r.namespace))
        continue;
      const workload = { kind: r.kind, namespace: r.namespace, name: r.name };
      const key = COLLECTOR_KEY.encode(workload);
      const entries = new Set(r.stale.map((e) => `${e.key}=${e.pod}`));
      now.set(key, entries);
      const before = this.suspects.get(key);
      const records = parseHolderRecords(r.records);
      const confirmed = r.stale.some(
        (e) => e.pod && facts.judgeCached(r.namespace, e.pod, records.get(e.pod)).stopped,
      );
      if (confirmed || (before && [...entries].some((e) => before.has(e)))) this.loop.enqueue(workload);
    }
    this.suspects = now;
    return requeueAfter<CollectorWait>(this.everyMs, 'sweep');
  }

  private async collect({ kind, namespace, name }: WorkloadKey<WorkloadKind>) {
    const o = await this.cas!.collect({ namespace, kind, name });
    if (!o.ok) {
      // gone meanwhile, a map Palisade will not rewrite or may not touch (the page says why): nothing to retry
      if (['workload_not_found', 'invalid_map', 'not_enabled', 'not_permitted'].includes(o.code)) return done;
      throw new Error(o.message);
    }
    if (o.dropped.length) {
      this.dropped += o.dropped.length;
      this.log.info(
        { workload: `${kind} ${namespace}/${name}`, dropped: o.dropped.map((e) => `${e.id}: ${e.pod}`) },
        'instance IDs of pods known to have stopped given back',
      );
    }
    return done;
  }
}

/**
 * On every replica (not only the leader): a pod named in an opted-in map that its kubelet was
 * seen to remove has its entry dropped at once, through the compare-and-swap (which judges it
 * again, live). What only a watch can see is so written down while a replica sees it: a replica
 * started later, or the next leader, does not know how that pod left.
 */
export function collectOnDeparture(conn: ClusterConnection, cas: InstanceIdCas, log: Logger) {
  holderFactsOf(conn).onDeparture((namespace, pod, d) => {
    if (!d.confirmed) return;
    const quoted = JSON.stringify(pod);
    const { deployments, statefulSets } = conn.informers;
    for (const w of [...deployments.values(), ...statefulSets.values()]) {
      if (w.namespace !== namespace || !w.instanceIdsEnabled || !w.instanceIds?.includes(quoted)) continue;
      const ref = { namespace, kind: w.kind as WorkloadKind, name: w.name };
      void cas.collect(ref).then((o) => {
        if (o.ok && o.dropped.length)
          log.info(
            {
              workload: `${ref.kind} ${namespace}/${ref.name}`,
              dropped: o.dropped.map((e) => `${e.id}: ${e.pod}`),
            },
            'instance ID of a pod its kubelet removed given back',
          );
      });
    }
  });
}
