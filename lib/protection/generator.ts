// What the generator derives from a workload: the protector's name, its floor and its
// selector. minAvailable = replicas - maxUnavailable, rounded as the workload's own
// controller rounds: a Deployment's maxUnavailable rounds down (and becomes 1 when both
// it and maxSurge come out 0); a StatefulSet's rounds up, is at least 1, and defaults to 1.
import { fenceposts, type IntOrPercent, scaledValue } from '../workloads/rollout.js';
import { API_VERSION, GENERATOR_FINALIZER, SOURCE_LABELS } from './types.js';

export type WorkloadKind = 'Deployment' | 'StatefulSet';

export interface WorkloadFacts {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  uid: string;
  replicas: number;
  minReadySeconds: number;
  selector: { matchLabels?: Record<string, string> | null; matchExpressions?: unknown[] | null };
  /** Deployment: spec.strategy; StatefulSet: spec.updateStrategy */
  strategy?: {
    type?: string;
    rollingUpdate?: { maxUnavailable?: IntOrPercent; maxSurge?: IntOrPercent } | null;
  } | null;
}

export const protectorName = (kind: WorkloadKind, name: string) => `${kind.toLowerCase()}-${name}`;

export function maxUnavailableOf(w: WorkloadFacts): number {
  const ru = w.strategy?.rollingUpdate;
  if (w.kind === 'Deployment') {
    // Recreate takes every pod down at once: the floor is 0 during that, so none is kept
    if (w.strategy?.type === 'Recreate') return w.replicas;
    return fenceposts(ru?.maxSurge, ru?.maxUnavailable, w.replicas).unavailable;
  }
  if (w.strategy?.type === 'OnDelete') return 1;
  const v = scaledValue(ru?.maxUnavailable ?? 1, w.replicas, true);
  return Math.min(w.replicas, Math.max(1, v));
}

export function minAvailableOf(w: WorkloadFacts): number {
  return Math.max(0, w.replicas - maxUnavailableOf(w));
}

/** The protector the generator wants for a workload (spec and identity; status is not its business). */
export function desiredProtector(w: WorkloadFacts) {
  return {
    apiVersion: API_VERSION,
    kind: 'PodProtector',
    metadata: {
      name: protectorName(w.kind, w.name),
      namespace: w.namespace,
      labels: {
        [SOURCE_LABELS.name]: w.name,
        [SOURCE_LABELS.group]: 'apps',
        [SOURCE_LABELS.kind]: w.kind,
        [SOURCE_LABELS.resource]: w.kind === 'Deployment' ? 'deployments' : 'statefulsets',
      },
      finalizers: [GENERATOR_FINALIZER],
    },
    spec: {
      minAvailable: minAvailableOf(w),
      minReadySeconds: w.minReadySeconds,
      selector: w.selector,
    },
  };
}

/** Does the protector's spec already say what the workload wants? (no write when it does) */
export function specMatches(
  current: { minAvailable: number; minReadySeconds?: number; selector: unknown },
  w: WorkloadFacts,
): boolean {
  const want = desiredProtector(w).spec;
  return (
    current.minAvailable === want.minAvailable &&
    (current.minReadySeconds ?? 0) === want.minReadySeconds &&
    JSON.stringify(current.selector) === JSON.stringify(want.selector)
  );
}

/** The cells named by podseidon.kubewharf.io/remove-cell-once (comma separated). */
export function cellsToRemove(annotation: string | undefined): string[] {
  return (annotation ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
