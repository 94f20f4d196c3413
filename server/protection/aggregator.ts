// One aggregator per cell: a pod informer on the cell's cluster, and per protector a
// throttled reconcile that writes the cell's counts with the stream's snapshot time
// ("clock" mode: the aggregator's clock when it received the latest pod event, only ever
// moving forward) and drops the buckets that snapshot has seen. Protectors that still
// have buckets in this cell are re-examined on the next event of the stream; a ready pod
// crossing minReadySeconds re-runs its protector by itself.
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
import { GROUP, PLURAL, type PodProtector, protectorKey, VERSION } from '../../lib/protection/types.js';
import { SupervisedInformer } from '../kube/informer.js';
import { component, type Logger } from '../log.js';
import type { ProtectionMetrics } from './metrics.js';
import type { ProtectorStore } from './protectors.js';
import { keepAliveStatusApi, type StatusApi, writeStatus } from './statusWrite.js';
import { errorText } from '../../lib/kube/errorText.js';

export interface AggregatorOptions {
  cellId: string;
  /** the cell's cluster: its pods are counted */
  cellKc: k8s.KubeConfig;
  /** the core cluster: where protectors' status is written */
  coreKc: k8s.KubeConfig;
  store: ProtectorStore;
  metrics: ProtectionMetrics;
  /** a label selector on protectors ('' = all) */
  protectorSelector?: string;
  defaults?: HistoryConfig;
  /** where its lines go (component 'aggregator', with the cell); context such as { cluster } on it */
  logger?: Logger;
}

export class Aggregator {
  readonly pods: SupervisedInformer<k8s.V1Pod, PodFacts>;
  private readonly byNamespace = new Map<string, Map<string, PodFacts>>();
  private readonly status: StatusApi;
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly lastRun = new Map<string, number>();
  /** protectors with buckets this cell has not seen yet: re-examined on the next pod event */
  private readonly parked = new Set<string>();
  private readonly selector;
  private snapshotTime = 0;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly o: AggregatorOptions) {
    this.log = component('aggregator', { cell: o.cellId }, o.logger);
    const core = o.cellKc.makeApiClient(k8s.CoreV1Api);
    this.status = keepAliveStatusApi(o.coreKc);
    this.selector = parseLabelSelector(o.protectorSelector ?? '');
    this.pods = new SupervisedInformer(
      o.cellKc,
      {
        kind: 'pods',
        path: '/api/v1/pods',
        list: (p) => core.listPodForAllNamespaces(p),
        project: podFacts,
      },
      {},
      o.logger,
    );
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

  async start() {
    this.pods.start();
    await this.pods.synced();
    // the first list is a consistent snapshot of the stream as of now
    this.snapshotTime = Math.max(this.snapshotTime, Date.now());
    for (const e of this.o.store.all()) this.enqueue(protectorKey(e.protector));
  }

  async stop() {
    this.status.close?.();
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    await this.pods.stop();
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
    if (this.stopped) return;
    const p = this.o.store.get(key)?.protector;
    if (!p) return;
    const rate = historyConfig(p, this.o.defaults ?? DEFAULT_HISTORY_CONFIG).aggregationRateMillis;
    const now = Date.now();
    const jittered = delayMs ?? rate * (0.5 + Math.random() * 0.5);
    const at = Math.max(now + jittered, (this.lastRun.get(key) ?? 0) + rate);
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      void this.reconcile(key);
    }, at - now);
    this.timers.set(key, { at, timer });
  }

  private async reconcile(key: string) {
    if (this.stopped) return;
    const entry = this.o.store.get(key);
    if (!entry || entry.dangling || !this.wanted(entry.protector)) return;
    this.lastRun.set(key, Date.now());
    const p = entry.protector;
    const now = Date.now();
    const sel = p.spec.aggregationSelector ?? p.spec.selector;
    const pods = [...(this.byNamespace.get(p.metadata.namespace)?.values() ?? [])].filter((f) =>
      labelSelectorMatches(sel as never, f.labels, { nilMatches: false }),
    );
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
    if (becomesAvailable !== undefined) this.enqueue(key, becomesAvailable - now + 5);
    const old = before.find((c) => c.id === this.o.cellId);
    const unchanged =
      old &&
      sameCounts(old.counts, mine.counts) &&
      old.buckets.length === mine.buckets.length &&
      old.lastEventTime !== undefined;
    if (unchanged) return this.o.metrics.reconciles.inc({ cell: this.o.cellId, outcome: 'unchanged' });
    await this.write(key, { ...p, status: { ...(p.status ?? {}), ...statusOf(cells, now) } });
  }

  private async write(key: string, next: PodProtector) {
    let outcome: string;
    try {
      outcome = (await writeStatus(this.status, this.o.metrics, 'aggregator', next)).outcome;
    } catch (e) {
      outcome = 'error';
      this.log.warn({ protector: key, err: errorText(e) }, 'status not written; retrying');
    }
    this.o.metrics.reconciles.inc({ cell: this.o.cellId, outcome: outcome === 'ok' ? 'written' : 'error' });
    // on a conflict or an error the informer brings the fresh copy: try again soon
    if (outcome === 'conflict' || outcome === 'error') this.enqueue(key, outcome === 'conflict' ? 50 : 1000);
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
