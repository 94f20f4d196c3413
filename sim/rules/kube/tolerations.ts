// Taints and tolerations with the semantics of k8s.io/api core/v1 helpers
// (Toleration.ToleratesTaint, FindMatchingUntoleratedTaint) and the NoExecute taint
// manager's timing. Pure: no I/O.
import { type Time, toMillis } from '../../../lib/kube/conditions.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: Time;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Toleration.ToleratesTaint: an empty key with Exists matches every taint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationFor(tolerations: Toleration[] | undefined, taint: Taint): Toleration | undefined {
  return (tolerations ?? []).find((t) => toleratesTaint(t, taint));
}

/** The first taint with one of `effects` that no toleration tolerates. */
export function untoleratedTaint(
  taints: Taint[] | undefined,
  tolerations: Toleration[] | undefined,
  effects: string[] = ['NoSchedule', 'NoExecute'],
): Taint | undefined {
  return (taints ?? []).find((taint) => effects.includes(taint.effect) && !tolerationFor(tolerations, taint));
}

/** How kube-scheduler names a taint in "had untolerated taint {key: value}". */
export function formatTaint(taint: Taint): string {
  return `{${taint.key}: ${taint.value ?? ''}}`;
}

export function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect && (a.value ?? '') === (b.value ?? '');
}

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
