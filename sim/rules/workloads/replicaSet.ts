// ReplicaSet arithmetic: which pods go first on scale-down, and the status counts.
// Availability first (seed 000): only active pods count, so a pod that starts
// terminating is replaced at once, before it is gone.
import type * as k8s from '@kubernetes/client-node';
import { isActive, isAvailable, isPodReady, readyCondition, toMs } from '../../../lib/workloads/pods.js';

const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const restarts = (p: k8s.V1Pod) =>
  (p.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);

/** Later first; a missing time counts as later than any (afterOrZero in the real one). */
function laterFirst(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return b - a;
}

/**
 * controller.ActivePods ordering, most deletable first: unscheduled, then pending,
 * then not ready, then ready most recently, then most restarts, then newest.
 */
export function compareForDeletion(a: k8s.V1Pod, b: k8s.V1Pod): number {
  const scheduled = Number(!!a.spec?.nodeName) - Number(!!b.spec?.nodeName);
  if (scheduled) return scheduled;
  const phase =
    (phaseRank[a.status?.phase ?? 'Pending'] ?? 1) - (phaseRank[b.status?.phase ?? 'Pending'] ?? 1);
  if (phase) return phase;
  const ready = Number(isPodReady(a)) - Number(isPodReady(b));
  if (ready) return ready;
  if (isPodReady(a)) {
    const since = laterFirst(
      toMs(readyCondition(a)?.lastTransitionTime),
      toMs(readyCondition(b)?.lastTransitionTime),
    );
    if (since) return since;
  }
  const r = restarts(b) - restarts(a);
  if (r) return r;
  const age = laterFirst(toMs(a.metadata?.creationTimestamp), toMs(b.metadata?.creationTimestamp));
  if (age) return age;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

export function podsToDelete(pods: k8s.V1Pod[], count: number): k8s.V1Pod[] {
  return [...pods].sort(compareForDeletion).slice(0, Math.max(0, count));
}

export interface ReplicaCounts {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
}

const hasLabels = (p: k8s.V1Pod, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => p.metadata?.labels?.[k] === v);

export function replicaSetCounts(
  pods: k8s.V1Pod[],
  templateLabels: Record<string, string>,
  minReadySeconds: number,
  now: number,
): ReplicaCounts {
  const active = pods.filter(isActive);
  return {
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) => hasLabels(p, templateLabels)).length,
    readyReplicas: active.filter(isPodReady).length,
    availableReplicas: active.filter((p) => isAvailable(p, minReadySeconds, now)).length,
  };
}
