// The NoExecute taint manager's timing (the embedded cluster's taint eviction controller):
// when a pod on a tainted node is evicted. Pure: no I/O.
import { toMillis } from '../../../lib/kube/conditions.js';
import { type Taint, type Toleration, tolerationFor } from '../../../lib/kube/tolerations.js';

export type EvictionPlan =
  | { action: 'keep' }
  | { action: 'evict'; taint: Taint }
  | { action: 'wait'; atMs: number; taint: Taint };

/**
 * What the NoExecute taint manager does with a pod on a node carrying `taints`: evict at
 * once when a NoExecute taint is not tolerated (or tolerated for <= 0 s); otherwise evict
 * when the first toleration runs out, counted from the taint's timeAdded (`addedAt`
 * supplies a time for taints without one); keep it when every toleration is unbounded.
 */
export function noExecutePlan(
  taints: Taint[] | undefined,
  tolerations: Toleration[] | undefined,
  nowMs: number,
  addedAt: (taint: Taint) => number = (t) => toMillis(t.timeAdded) ?? nowMs,
): EvictionPlan {
  let first: { atMs: number; taint: Taint } | undefined;
  for (const taint of taints ?? []) {
    if (taint.effect !== 'NoExecute') continue;
    const toleration = tolerationFor(tolerations, taint);
    if (!toleration) return { action: 'evict', taint };
    const seconds = toleration.tolerationSeconds;
    if (seconds === undefined || seconds === null) continue;
    if (seconds <= 0) return { action: 'evict', taint };
    const atMs = addedAt(taint) + seconds * 1000;
    if (!first || atMs < first.atMs) first = { atMs, taint };
  }
  if (!first) return { action: 'keep' };
  if (first.atMs <= nowMs) return { action: 'evict', taint: first.taint };
  return { action: 'wait', ...first };
}
