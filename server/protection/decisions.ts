// What the console shows of deletion protection over time: the webhook's recent decisions
// and, per protector, the series of its status (aggregated and estimated available, lag,
// buckets) as each change arrives — the admission-history chart's data. Bounded rings.
import { cellsOf, summarize } from '../../lib/protection/status.js';
import type { PodProtector } from '../../lib/protection/types.js';
import type { AdmissionVerdict } from '../../lib/protection/verdict.js';

export interface Decision {
  at: number;
  protector: string;
  cell: string;
  pod: string;
  podUid: string;
  operation: 'DELETE' | 'EVICT';
  allowed: boolean;
  /** why, typed (lib/protection/verdict.ts); `code` is the HTTP status answered */
  verdict: AdmissionVerdict;
  code: number;
  message: string;
  requester: string;
  dryRun: boolean;
  note?: string;
  /** indexed: the available count judged on, when this replica's pod index saw fewer */
  snapshot?: { aggregated: number; estimated: number; minAvailable: number; indexed?: number };
}

export interface HistoryPoint {
  at: number;
  aggregated: number;
  estimated: number;
  minAvailable: number;
  lag: number;
  /** single-pod buckets and compacted buckets (with the admissions they stand for) */
  singleBuckets: number;
  compactedBuckets: number;
  compactedCount: number;
}

const MAX_DECISIONS = 500;
const MAX_POINTS = 1000;

type Listener = (kind: 'decision' | 'point', protector: string, item: Decision | HistoryPoint) => void;

export class DecisionLog {
  private readonly decisions = new Map<string, Decision[]>();
  private readonly points = new Map<string, HistoryPoint[]>();
  private readonly listeners: Listener[] = [];
  private readonly denials = new Map<string, number[]>();

  add(d: Decision) {
    push(this.decisions, d.protector, d, MAX_DECISIONS);
    if (!d.allowed && !d.dryRun) push(this.denials, d.protector, d.at, 100);
    for (const l of this.listeners) l('decision', d.protector, d);
  }

  /** Record a protector's status as it is now, if it differs from the last point. */
  observe(key: string, p: PodProtector, now = Date.now()) {
    const cells = cellsOf(p);
    const s = summarize(cells, now);
    const buckets = cells.flatMap((c) => c.buckets);
    const compacted = buckets.filter((b) => b.podUid === undefined && (b.count > 1 || b.end !== undefined));
    const point: HistoryPoint = {
      at: now,
      aggregated: s.aggregatedAvailableReplicas,
      estimated: s.estimatedAvailableReplicas,
      minAvailable: p.spec.minAvailable,
      lag: s.aggregatedAvailableReplicas - s.estimatedAvailableReplicas,
      singleBuckets: buckets.length - compacted.length,
      compactedBuckets: compacted.length,
      compactedCount: compacted.reduce((n, b) => n + b.count, 0),
    };
    const last = this.points.get(key)?.at(-1);
    if (last && same(last, point)) return;
    push(this.points, key, point, MAX_POINTS);
    for (const l of this.listeners) l('point', key, point);
  }

  recent(protector?: string, limit = 100): Decision[] {
    const all = protector
      ? (this.decisions.get(protector) ?? [])
      : [...this.decisions.values()].flat().sort((a, b) => a.at - b.at);
    return all.slice(-limit).reverse();
  }

  history(protector: string): HistoryPoint[] {
    return this.points.get(protector) ?? [];
  }

  /** denials (not dry runs) in the last `windowMs`: a protector that is blocking deletions now */
  recentDenials(protector: string, now = Date.now(), windowMs = 30_000) {
    return (this.denials.get(protector) ?? []).filter((t) => t > now - windowMs).length;
  }

  onEntry(l: Listener) {
    this.listeners.push(l);
    return () => this.listeners.splice(this.listeners.indexOf(l), 1);
  }
}

function push<T>(m: Map<string, T[]>, key: string, item: T, max: number) {
  let list = m.get(key);
  if (!list) m.set(key, (list = []));
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

const same = (a: HistoryPoint, b: HistoryPoint) =>
  a.aggregated === b.aggregated &&
  a.estimated === b.estimated &&
  a.minAvailable === b.minAvailable &&
  a.singleBuckets === b.singleBuckets &&
  a.compactedBuckets === b.compactedBuckets &&
  a.compactedCount === b.compactedCount;
