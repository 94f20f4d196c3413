// The admission rule for one PodProtector and a batch of deletions (Podseidon's
// disruption quota): each pod is judged against the count of its health criterion.
// Denied (429) when the count is at or below minAvailable; Retry (409) when it is within
// minAvailable + lag, where lag counts deletions admitted but not yet aggregated, or when
// lag has reached maxConcurrentLag; otherwise Ok. A pod that does not count under its
// criterion (not ready, not yet available...) is AlreadyUnhealthy: admitted, no quota.
import type { Counts } from './counts.js';
import type { Criterion } from './types.js';

export type Verdict = 'Ok' | 'AlreadyUnhealthy' | 'Retry' | 'Denied';

export const admits = (v: Verdict) => v === 'Ok' || v === 'AlreadyUnhealthy';

/** Which counts a pod contributes to now. */
export interface PodHealth {
  scheduled: boolean;
  running: boolean;
  ready: boolean;
  available: boolean;
}

export interface BatchItem {
  criterion: Criterion;
  health: PodHealth;
}

export interface QuotaState {
  counts: Omit<Counts, 'total'>;
  /** at or below: Denied */
  reject: number;
  /** at or below: Retry */
  retry: number;
  /** deletions that may still be admitted before lag reaches maxConcurrentLag; undefined: no limit */
  remaining?: number;
}

export function quotaState(
  aggregated: Omit<Counts, 'total'>,
  minAvailable: number,
  lag: number,
  maxConcurrentLag: number,
): QuotaState {
  return {
    counts: { ...aggregated },
    reject: minAvailable,
    retry: minAvailable + lag,
    ...(maxConcurrentLag > 0 ? { remaining: Math.max(0, maxConcurrentLag - lag) } : {}),
  };
}

const contributes = (h: PodHealth, c: Criterion) =>
  c === 'Scheduled' ? h.scheduled : c === 'Running' ? h.running : c === 'Ready' ? h.ready : h.available;

const countOf = (s: QuotaState, c: Criterion) =>
  c === 'Scheduled'
    ? s.counts.scheduled
    : c === 'Running'
      ? s.counts.running
      : c === 'Ready'
        ? s.counts.ready
        : s.counts.available;

export function judge(s: QuotaState, item: BatchItem): Verdict {
  if (!contributes(item.health, item.criterion)) return 'AlreadyUnhealthy';
  if (s.remaining === 0) return 'Retry';
  const current = countOf(s, item.criterion);
  if (current <= s.reject) return 'Denied';
  if (current <= s.retry) return 'Retry';
  return 'Ok';
}

/** An admitted pod no longer counts: take it out of every count it was part of. */
function disrupt(s: QuotaState, item: BatchItem, verdict: Verdict) {
  const h = item.health;
  if (h.scheduled) s.counts.scheduled--;
  if (h.running) s.counts.running--;
  if (h.ready) s.counts.ready--;
  if (h.available) s.counts.available--;
  // only a deletion that consumes quota uses up the lag budget
  if (verdict === 'Ok' && s.remaining !== undefined) s.remaining--;
}

/**
 * Judge a batch given oldest first. The newest request is judged first: older ones are
 * likelier to have timed out at the caller, so quota goes where it will be used.
 * Mutates nothing but `state`, which ends as the counts after the admitted deletions.
 */
export function admitBatch(state: QuotaState, items: readonly BatchItem[]): Verdict[] {
  const out: Verdict[] = new Array(items.length);
  for (let i = items.length - 1; i >= 0; i--) {
    const v = judge(state, items[i]);
    if (admits(v)) disrupt(state, items[i], v);
    out[i] = v;
  }
  return out;
}
