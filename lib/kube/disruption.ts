// PodDisruptionBudget status arithmetic as the disruption controller does it
// (getExpectedPodCount, countHealthyPods, buildDisruptedPodMap, updatePdbStatus).
// Pure: no I/O.
import { rfc3339, type StatusCondition, setStatusCondition, type Time, toMillis } from './conditions.js';

/** How long an eviction may take before the PDB stops counting the pod as disrupted. */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export type IntOrString = number | string;

/** intstr.GetScaledValueFromIntOrPercent: "50%" of total, rounded up or down. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) {
    if (/^-?\d+$/.test(v)) return Number(v);
    throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export interface BudgetSpec {
  minAvailable?: IntOrString;
  maxUnavailable?: IntOrString;
}

export const isPercent = (v: IntOrString | undefined) => typeof v === 'string' && v.endsWith('%');

/** Whether the budget needs the pods' controllers' scale (percentages and maxUnavailable). */
export function needsScale(spec: BudgetSpec): boolean {
  return (
    spec.maxUnavailable !== undefined || (spec.minAvailable !== undefined && isPercent(spec.minAvailable))
  );
}

/**
 * expectedPods and desiredHealthy. An integer minAvailable counts the matching pods; a
 * percentage or maxUnavailable uses `scale` (the sum of the controllers' replicas).
 */
export function expectedAndDesired(
  spec: BudgetSpec,
  podCount: number,
  scale: number,
): { expectedPods: number; desiredHealthy: number } {
  if (spec.maxUnavailable !== undefined) {
    const maxUnavailable = scaledValue(spec.maxUnavailable, scale, true);
    return { expectedPods: scale, desiredHealthy: Math.max(0, scale - maxUnavailable) };
  }
  if (spec.minAvailable === undefined) return { expectedPods: 0, desiredHealthy: 0 };
  if (!isPercent(spec.minAvailable))
    return { expectedPods: podCount, desiredHealthy: scaledValue(spec.minAvailable, podCount, true) };
  return { expectedPods: scale, desiredHealthy: scaledValue(spec.minAvailable, scale, true) };
}

/** No disruption is allowed while the budget expects no pods: they may be about to appear. */
export function disruptionsAllowed(currentHealthy: number, desiredHealthy: number, expectedPods: number) {
  return expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);
}

export interface BudgetPod {
  name: string;
  terminating: boolean;
  ready: boolean;
}

/**
 * status.disruptedPods kept: entries of matching pods that are not yet terminating and
 * whose eviction is younger than DELETION_TIMEOUT; expired ones are reported in `expired`;
 * `recheckAtMs` is when the next entry expires.
 */
export function pruneDisruptedPods(
  disrupted: Record<string, Time> | undefined,
  pods: BudgetPod[],
  nowMs: number,
): { kept: Record<string, string>; expired: string[]; recheckAtMs?: number } {
  const kept: Record<string, string> = {};
  const expired: string[] = [];
  let recheckAtMs: number | undefined;
  for (const pod of pods) {
    const at = toMillis(disrupted?.[pod.name]);
    if (pod.terminating || at === undefined) continue;
    const deadline = at + DELETION_TIMEOUT_MS;
    if (deadline < nowMs) {
      expired.push(pod.name);
      continue;
    }
    const raw = disrupted?.[pod.name];
    kept[pod.name] = typeof raw === 'string' ? raw : rfc3339(at);
    recheckAtMs = recheckAtMs === undefined ? deadline : Math.min(recheckAtMs, deadline);
  }
  return { kept, expired, recheckAtMs };
}

/** Ready pods that are neither terminating nor recently evicted. */
export function countHealthy(pods: BudgetPod[], disrupted: Record<string, string>): number {
  return pods.filter((p) => p.ready && !p.terminating && !(p.name in disrupted)).length;
}

/** UpdateDisruptionAllowedCondition. */
export function disruptionAllowedCondition(
  conditions: StatusCondition[] | undefined,
  allowed: number,
  observedGeneration: number,
  nowMs: number,
): StatusCondition[] {
  return setStatusCondition(
    conditions,
    allowed > 0
      ? {
          type: 'DisruptionAllowed',
          status: 'True',
          reason: 'SufficientPods',
          message: '',
          observedGeneration,
        }
      : {
          type: 'DisruptionAllowed',
          status: 'False',
          reason: 'InsufficientPods',
          message: '',
          observedGeneration,
        },
    nowMs,
  );
}

/** pdbhelper.ConditionsAreUpToDate */
export function conditionUpToDate(
  conditions: StatusCondition[] | undefined,
  allowed: number,
  observedGeneration: number | undefined,
  generation: number | undefined,
): boolean {
  const c = conditions?.find((x) => x.type === 'DisruptionAllowed');
  if (!c || (observedGeneration ?? 0) !== (generation ?? 0)) return false;
  if (allowed > 0) return c.status === 'True' && c.reason === 'SufficientPods';
  return c.status === 'False' && (c.reason === 'InsufficientPods' || c.reason === 'SyncFailed');
}

export function sameDisruptedPods(a: Record<string, Time> | undefined, b: Record<string, Time>): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => toMillis(a![k]) === toMillis(b[k]));
}
