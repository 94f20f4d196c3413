// Taints and tolerations with the semantics of k8s.io/api core/v1 helpers
// (Toleration.ToleratesTaint, FindMatchingUntoleratedTaint): the embedded cluster's scheduler
// and kubelet, and the incident view's "where can it start again" (lib/incident/capacity.ts).
// Pure: no I/O.
import type { Time } from './conditions.js';

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
