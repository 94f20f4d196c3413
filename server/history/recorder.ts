// The recorder: what Palisade's watches see, written to the history store. It reads the
// cluster's shared watches (one per kind and cluster: the console's own nodes and events, and
// projections of the same Deployments, StatefulSets and NodeFences watches the loops use) and
// the webhook's decisions; it starts no watch of its own. Entries are keyed by the fact
// (lib/history/entries.ts), so a relist, a restart or another replica writes nothing twice.
// Until the store is open, entries wait in memory (bounded).
import { isRefusal } from '../../lib/protection/verdict.js';
import * as k8s from '@kubernetes/client-node';
import type { NodeView } from '../../lib/console/protocol.js';
import { FENCE_PLURAL, GROUP, VERSION } from '../../lib/fencing/types.js';
import {
  denialEntry,
  eventEntry,
  fenceEntries,
  nodeConditionEntry,
  type PodFact,
  podEntries,
  type WorkloadFact,
  workloadEntry,
} from '../../lib/history/entries.js';
import type { HistoryEntry } from '../../lib/history/types.js';
import type { FencingService } from '../fencing/service.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { SupervisedInformer } from '../kube/informer.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import type { Decision } from '../protection/decisions.js';
import type { ProtectionService } from '../protection/service.js';
import type { HistoryService } from './service.js';

export interface RecorderOptions {
  history: HistoryService;
  clusters: Iterable<ClusterConnection>;
  protection?: ProtectionService;
  fencing?: FencingService;
  logger?: Logger;
  /** the install's audit key: only Events Palisade sealed with it become audit entries */
  auditKey?: Buffer;
  /** after entries were written (new ones only), per cluster */
  onRecorded?: (cluster: string, entries: HistoryEntry[]) => void;
  flushEveryMs?: number;
}

/** what waits for the store at most; beyond it the oldest go (and the log says how many) */
const MAX_PENDING = 50_000;
/** ids already handed to the store: a node's heartbeat re-derives its Ready entry every few seconds */
const MAX_SEEN = 100_000;
const PER_FLUSH = 2_000;

function readyFact(v: NodeView) {
  const c = v.conditions.find((x) => x.type === 'Ready');
  return { name: v.name, ready: v.ready, readySince: v.readySince, reason: c?.reason, message: c?.message };
}

export class HistoryRecorder {
  private pending: HistoryEntry[] = [];
  private readonly seen = new Set<string>();
  private readonly own: SupervisedInformer<any, any>[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private dropped = 0;

  constructor(private readonly o: RecorderOptions) {
    this.log = component('history', {}, o.logger ?? rootLogger);
    for (const conn of o.clusters) this.watch(conn);
    if (o.protection) this.watchDenials(o.protection);
    this.timer = setInterval(() => void this.flush(), o.flushEveryMs ?? 500);
    this.timer.unref();
  }

  /** Queue entries (those already queued or written are skipped). */
  record(entries: (HistoryEntry | undefined)[]) {
    for (const e of entries) {
      if (!e) continue;
      const key = `${e.cluster}\u0000${e.id}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.values().next().value!);
      this.pending.push(e);
    }
    if (this.pending.length > MAX_PENDING) {
      this.dropped += this.pending.length - MAX_PENDING;
      this.pending.splice(0, this.pending.length - MAX_PENDING);
    }
  }

  private watch(conn: ClusterConnection) {
    const id = conn.id;
    const node = (n: { view: NodeView }) =>
      this.record([nodeConditionEntry(id, readyFact(n.view), Date.now())]);
    conn.informers.nodes.on({ add: node, update: node });
    const event = (e: Parameters<typeof eventEntry>[1]) => this.record([eventEntry(id, e, this.o.auditKey)]);
    conn.informers.events.on({ add: event, update: event });
    // where pods run, for replay (the console's own pod watch)
    const pod = (next: PodFact | undefined, old: PodFact | undefined) =>
      this.record(podEntries(id, next, old, Date.now()));
    conn.informers.pods.on({
      add: (p) => pod(p, undefined),
      update: (next, old) => pod(next, old),
      delete: (old) => pod(undefined, old),
    });
    // the console's watches may have listed already: what they hold is recorded too (ids dedupe)
    for (const n of conn.informers.nodes.values()) node(n);
    for (const e of conn.informers.events.values()) event(e);
    for (const p of conn.informers.pods.values()) pod(p, undefined);
    // the same paths as the console's and the loops' watches: projections of them, not new watches
    const apps = conn.spec.kc.makeApiClient(k8s.AppsV1Api);
    const fact =
      (kind: WorkloadFact['kind']) =>
      (w: k8s.V1Deployment | k8s.V1StatefulSet): WorkloadFact => ({
        kind,
        namespace: w.metadata?.namespace ?? '',
        name: w.metadata?.name ?? '',
        uid: w.metadata?.uid ?? '',
        resourceVersion: w.metadata?.resourceVersion ?? '',
        replicas: w.spec?.replicas ?? 1,
        readyReplicas: w.status?.readyReplicas ?? 0,
      });
    const workloads = [
      conn.registry.informer<k8s.V1Deployment, WorkloadFact>({
        kind: 'deployments',
        path: '/apis/apps/v1/deployments',
        list: (p) => apps.listDeploymentForAllNamespaces(p),
        project: fact('Deployment'),
      }),
      conn.registry.informer<k8s.V1StatefulSet, WorkloadFact>({
        kind: 'statefulsets',
        path: '/apis/apps/v1/statefulsets',
        list: (p) => apps.listStatefulSetForAllNamespaces(p),
        project: fact('StatefulSet'),
      }),
    ];
    for (const w of workloads)
      w.on({ update: (next, old) => this.record([workloadEntry(id, next, old, Date.now())]) });
    this.own.push(...workloads);
    // NodeFences only where the fencing controller found the CRD (else the watch would 404 for ever)
    if (this.o.fencing?.controllers.has(id)) {
      const custom = conn.spec.kc.makeApiClient(k8s.CustomObjectsApi);
      const fences = conn.registry.informer<k8s.KubernetesObject, HistoryEntry[]>({
        kind: FENCE_PLURAL,
        path: `/apis/${GROUP}/${VERSION}/${FENCE_PLURAL}`,
        list: (p) =>
          custom.listClusterCustomObject({
            group: GROUP,
            version: VERSION,
            plural: FENCE_PLURAL,
            ...p,
          }) as never,
        project: (raw) => fenceEntries(id, raw),
      });
      fences.on({ add: (es) => this.record(es), update: (es) => this.record(es) });
      this.own.push(fences);
    }
    for (const inf of this.own) inf.start();
  }

  private watchDenials(p: ProtectionService) {
    const clusterOf = new Map(p.cells.map((c) => [c.id, c.cluster]));
    this.unsubscribe.push(
      p.decisions.onEntry((kind, _protector, item) => {
        if (kind !== 'decision') return;
        const d = item as Decision;
        // refusals only: dry runs change nothing, a full buffer only asks the client to retry
        if (d.dryRun || !isRefusal(d.verdict) || d.verdict === 'buffer-full') return;
        this.record([denialEntry(clusterOf.get(d.cell) ?? p.core.id, { ...d, verdict: d.verdict })]);
      }),
    );
  }

  /** Writes what waits (up to PER_FLUSH entries); a failed write is retried on the next flush. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write() {
    const store = this.o.history.current();
    if (!store || !this.pending.length) return;
    if (this.dropped) {
      this.log.warn({ dropped: this.dropped }, 'history: entries dropped while the store was unavailable');
      this.dropped = 0;
    }
    const batch = this.pending.slice(0, PER_FLUSH);
    try {
      await store.append(batch);
      this.pending.splice(0, batch.length);
    } catch (e) {
      this.log.warn(
        { err: (e as Error).message, waiting: this.pending.length },
        'history: write failed (retried)',
      );
      return;
    }
    const byCluster = new Map<string, HistoryEntry[]>();
    for (const e of batch) byCluster.set(e.cluster, [...(byCluster.get(e.cluster) ?? []), e]);
    for (const [c, es] of byCluster) this.o.onRecorded?.(c, es);
  }

  /** Writes what waits (the store open), then stops. */
  async stop() {
    clearInterval(this.timer);
    for (const u of this.unsubscribe) u();
    await Promise.all(this.own.map((i) => i.stop()));
    await this.flush().catch(() => undefined);
    while (this.pending.length && this.o.history.current()) {
      const before = this.pending.length;
      await this.flush();
      if (this.pending.length === before) break;
    }
  }
}
