// One aggregator per cell: a projection of the cell cluster's shared pod watch, and per
// protector a throttled reconcile on the controller runtime that writes the cell's counts with
// the stream's snapshot time ("clock" mode: the aggregator's clock when it received the latest
// pod event, only ever moving forward) and drops the buckets that snapshot has seen. Protectors
// that still have buckets in this cell are re-examined on the next event of the stream; a
// ready pod crossing minReadySeconds re-runs its protector by itself. Every replica keeps the
// pod index; only the leader of the core cluster's controller Lease reconciles (its writes go
// through the term's kubeconfig).
import * as k8s from '@kubernetes/client-node';
import {
  labelSelectorMatches,
  parseLabelSelector,
  matchesRequirements,
} from '../../lib/kube/labelSelector.js';
import { aggregate, type Counts, nextAvailableAt, type PodFacts } from '../../lib/protection/counts.js';
import { podFacts } from '../../lib/protection/pods.js';
import {
  cellsOf,
  DEFAULT_HISTORY_CONFIG,
  type HistoryConfig,
  historyConfig,
  recordAggregation,
  statusOf,
} from '../../lib/protection/status.js';
import { type PodProtector, protectorKey } from '../../lib/protection/types.js';
import type { InformerRegistry, SupervisedInformer } from '../kube/informer.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { nameKey } from '../../lib/runtime/keys.js';
import type { Term } from '../runtime/gate.js';
import { done, type Result, requeueAfter } from '../../lib/runtime/result.js';
import type { ProtectionMetrics } from './metrics.js';
import type { ProtectorStore } from './protectors.js';
import { keepAliveStatusApi, type StatusApi, writeStatus } from './statusWrite.js';
import { errorText } from '../../lib/kube/errorText.js';

/** why an aggregator looks at a protector again later */
export type AggregatorWait = 'aggregation-rate' | 'min-ready-seconds' | 'conflict' | 'namespace-label';

export interface AggregatorOptions {
  cellId: string;
  /** the cell's cluster's shared watches: its pods are counted */
  cell: InformerRegistry;
  /** the core cluster: where protectors' status is written */
  coreKc: k8s.KubeConfig;
  store: ProtectorStore;
  metrics: ProtectionMetrics;
  /** a label selector on protectors ('' = all) */
  protectorSelector?: string;
  defaults?: HistoryConfig;
  /** where its lines go (component 'aggregator', with the cell); context such as { cluster } on it */
  logger?: Logger;
  /**
   * Does the webhook match this namespace on the cell's cluster (namespaceLabels.ts)? No status
   * is written until it does: a protector that reads as aggregated is enforced.
   */
  enforced?: (namespace: string) => boolean;
}

export class Aggregator {
  readonly pods: SupervisedInformer<k8s.V1Pod, PodFacts>;
  /**
   * its loop on the controller runtime (protection adds it to the core cluster's manager), keyed
   * by protector (namespace/name). Its pod and protector events enqueue by hand, not through the
   * builder's watches: a key waits out the protector's aggregation rate (enqueue below), where a
   * watch would look at it at once.
   */
  readonly loop: Loop<string, AggregatorWait>;
  private readonly byNamespace = new Map<string, Map<string, PodFacts>>();
  private status: StatusApi | undefined;
  private readonly lastRun = new Map<string, number>();
  /** protectors with buckets this cell has not seen yet: re-examined on the next pod event */
  private readonly parked = new Set<string>();
  private readonly selector;
  private snapshotTime = 0;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly o: AggregatorOptions) {
    this.log = component('aggregator', { cell: o.cellId }, o.logger);
    const core = o.cell.kc.makeApiClient(k8s.CoreV1Api);
    this.selector = parseLabelSelector(o.protectorSelector ?? '');
    this.pods = o.cell.informer({
      kind: 'pods',
      path: '/api/v1/pods',
      list: (p) => core.listPodForAllNamespaces(p),
      project: podFacts,
    });
    this.loop = new Loop<string, AggregatorWait>({
      name: `aggregator:${o.cellId}`,
      key: nameKey,
      begin: (term) => this.begin(term),
      reconcile: (key) => this.reconcile(key),
      end: () => this.end(),
      // protectors are independent: several status writes in flight (one per protector at most)
      concurrency: 8,
      backoff: { baseMs: 1_000, maxMs: 30_000 },
      logger: o.logger,
    });
    this.pods.on({
      add: (p) => this.podEvent(p, undefined),
      update: (p, old) => this.podEvent(p, old),
      delete: (old) => this.podEvent(undefined, old),
    });
    o.store.onChange((key, e) => {
      if (e && !e.dangling) this.enqueue(key);
    });
  }

  get cellId() {
    return this.o.cellId;
  }

  get lastSnapshotTime() {
    return this.snapshotTime;
  }

  /** Start watching (every replica keeps the pod index); resolves once the pods are listed. */
  async start() {
    this.pods.start();
    await this.pods.synced();
    // the first list is a consistent snapshot of the stream as of now
    this.snapshotTime = Math.max(this.snapshotTime, Date.now());
  }

  async stop() {
    this.stopped = true;
    this.loop.controller.halt();
    await this.pods.stop();
  }

  /** A term begins on this console: write through its kubeconfig, look at every protector. */
  private async begin(term: Term) {
    this.status = keepAliveStatusApi(term.kc(this.o.coreKc), term.fieldManager);
    await Promise.all([this.pods.synced(), this.o.store.whenSynced()]);
    this.snapshotTime = Math.max(this.snapshotTime, Date.now());
    this.lastRun.clear();
    this.parked.clear();
    for (const e of this.o.store.all()) this.enqueue(protectorKey(e.protector));
  }

  private end() {
    this.status?.close?.();
    this.status = undefined;
    this.parked.clear();
  }

  private podEvent(next: PodFacts | undefined, old: PodFacts | undefined) {
    this.snapshotTime = Math.max(this.snapshotTime, Date.now());
    const p = (next ?? old)!;
    let ns = this.byNamespace.get(p.namespace);
    if (!ns) this.byNamespace.set(p.namespace, (ns = new Map()));
    if (next) ns.set(next.uid, next);
    else ns.delete(p.uid);
    for (const e of this.o.store.all()) {
      const pr = e.protector;
      if (pr.metadata.namespace !== p.namespace || e.dangling) continue;
      const sel = pr.spec.aggregationSelector ?? pr.spec.selector;
      const hit = (f?: PodFacts) =>
        !!f && labelSelectorMatches(sel as never, f.labels, { nilMatches: false });
      if (hit(next) || hit(old)) this.enqueue(protectorKey(pr));
    }
    // any event of this stream moves its snapshot past the parked protectors' buckets
    for (const key of this.parked) this.enqueue(key);
    this.parked.clear();
  }

  private wanted(p: PodProtector) {
    return matchesRequirements(this.selector, p.metadata.labels ?? {});
  }

  /** Schedule a reconcile: after the protector's aggregation rate (with jitter), at most once per rate. */
  enqueue(key: string, delayMs?: number) {
    if (this.stopped || !this.loop.running) return;
    const ms = this.delayFor(key, delayMs);
    if (ms !== undefined) this.loop.enqueueAfter(key, Math.max(1, ms));
  }

  /** the wait before a protector's next reconcile: never sooner than its rate after the last one */
  private delayFor(key: string, delayMs?: number): number | undefined {
    const p = this.o.store.get(key)?.protector;
    if (!p) return undefined;
    const rate = historyConfig(p, this.o.defaults ?? DEFAULT_HISTORY_CONFIG).aggregationRateMillis;
    const now = Date.now();
    const jittered = delayMs ?? rate * (0.5 + Math.random() * 0.5);
    return Math.max(now + jittered, (this.lastRun.get(key) ?? 0) + rate) - now;
  }

  /** The pods this cell's index counts for a protector (its aggregationSelector, or selector). */
  private podsOf(p: PodProtector): PodFacts[] {
    const sel = p.spec.aggregationSelector ?? p.spec.selector;
    return [...(this.byNamespace.get(p.metadata.namespace)?.values() ?? [])].filter((f) =>
      labelSelectorMatches(sel as never, f.labels, { nilMatches: false }),
    );
  }

  /**
   * The counts this replica's own index gives a protector now, for the webhook to bound a stale
   * aggregation with (lib/protection/batch.ts). Undefined when the index is not complete (not
   * listed yet, or its watch is down) or the protector is not this aggregator's to count (its
   * selector leaves it to another aggregator or to whoever writes its status).
   */
  liveCounts(p: PodProtector, now = Date.now()): Counts | undefined {
    if (this.stopped || !this.pods.health.synced || !this.wanted(p)) return undefined;
    return aggregate(this.podsOf(p), p.spec.minReadySeconds, now);
  }

  private async reconcile(key: string): Promise<Result<AggregatorWait>> {
    const entry = this.o.store.get(key);
    if (!entry || entry.dangling || !this.wanted(entry.protector)) return done;
    this.lastRun.set(key, Date.now());
    const p = entry.protector;
    const now = Date.now();
    const pods = this.podsOf(p);
    const counts = aggregate(pods, p.spec.minReadySeconds, now);
    const before = cellsOf(p);
    const here = this.byNamespace.get(p.metadata.namespace);
    const rate = historyConfig(p, this.o.defaults ?? DEFAULT_HISTORY_CONFIG).aggregationRateMillis;
    const cells = recordAggregation(before, this.o.cellId, counts, this.snapshotTime, {
      stillRunning: (uid) => {
        const f = here?.get(uid);
        return !!f && !f.terminating;
      },
      graceMs: Math.max(5000, 4 * rate),
    });
    const mine = cells.find((c) => c.id === this.o.cellId)!;
    if (mine.buckets.length) this.parked.add(key);
    const becomesAvailable = nextAvailableAt(pods, p.spec.minReadySeconds, now);
    // a ready pod crossing minReadySeconds: look again then (not sooner than the rate allows)
    const later: Result<AggregatorWait> =
      becomesAvailable !== undefined
        ? requeueAfter(this.delayFor(key, becomesAvailable - now + 5) ?? 0, 'min-ready-seconds')
        : done;
    const old = before.find((c) => c.id === this.o.cellId);
    const unchanged =
      old &&
      sameCounts(old.counts, mine.counts) &&
      old.buckets.length === mine.buckets.length &&
      old.lastEventTime !== undefined;
    if (unchanged) {
      this.o.metrics.reconciles.inc({ cell: this.o.cellId, outcome: 'unchanged' });
      return later;
    }
    // the namespace is labelled first: a protector aggregated here is one the webhook reviews
    if (this.o.enforced && !this.o.enforced(p.metadata.namespace))
      return requeueAfter(100, 'namespace-label');
    const written = await this.write(key, { ...p, status: { ...(p.status ?? {}), ...statusOf(cells, now) } });
    return written ?? later;
  }

  /** Write the status; a conflict asks for another look once the rate allows (the informer brings the fresh copy). */
  private async write(key: string, next: PodProtector): Promise<Result<AggregatorWait> | undefined> {
    if (!this.status) throw new Error('no term: not leading');
    let outcome: string;
    try {
      outcome = (await writeStatus(this.status, this.o.metrics, 'aggregator', next)).outcome;
    } catch (e) {
      this.o.metrics.reconciles.inc({ cell: this.o.cellId, outcome: 'error' });
      this.log.debug({ protector: key, err: errorText(e) }, 'status not written');
      // the runtime retries with this protector's backoff
      throw e;
    }
    this.o.metrics.reconciles.inc({ cell: this.o.cellId, outcome: outcome === 'ok' ? 'written' : 'error' });
    if (outcome === 'conflict') return requeueAfter(this.delayFor(key, 50) ?? 50, 'conflict');
    return undefined;
  }
}

// field by field: the status read back lists the counts in another key order than
// aggregate() does, and a JSON comparison made every reconcile a write, forever
const sameCounts = (a: Counts, b: Counts) =>
  a.total === b.total &&
  a.scheduled === b.scheduled &&
  a.running === b.running &&
  a.ready === b.ready &&
  a.available === b.available;
