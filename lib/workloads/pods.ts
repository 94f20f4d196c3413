// Pod predicates shared by the workload controllers (Ready, available after
// minReadySeconds, terminating, ownership). Timestamps may be Date (list) or string
// (watch), as client-node's informer caches hold both.
import type * as k8s from '@kubernetes/client-node';

type Meta = { metadata?: k8s.V1ObjectMeta };

export function toMs(t: Date | string | undefined | null): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = new Date(t).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

export const isTerminating = (o: Meta): boolean => !!o.metadata?.deletionTimestamp;

export const isTerminal = (p: k8s.V1Pod): boolean =>
  p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Counts toward a ReplicaSet: neither terminating nor finished. */
export const isActive = (p: k8s.V1Pod): boolean => !isTerminating(p) && !isTerminal(p);

export function readyCondition(p: k8s.V1Pod): k8s.V1PodCondition | undefined {
  return p.status?.conditions?.find((c) => c.type === 'Ready');
}

export const isPodReady = (p: k8s.V1Pod): boolean => readyCondition(p)?.status === 'True';

export const isRunningAndReady = (p: k8s.V1Pod): boolean => p.status?.phase === 'Running' && isPodReady(p);

/** When a Ready pod becomes available (ms since epoch); undefined if it is not Ready. */
export function availableAt(p: k8s.V1Pod, minReadySeconds: number): number | undefined {
  if (!isPodReady(p)) return undefined;
  if (!minReadySeconds) return 0;
  const since = toMs(readyCondition(p)?.lastTransitionTime);
  return since === undefined ? undefined : since + minReadySeconds * 1000;
}

export function isAvailable(p: k8s.V1Pod, minReadySeconds: number, now: number): boolean {
  const at = availableAt(p, minReadySeconds);
  return at !== undefined && (minReadySeconds === 0 || at < now);
}

/** Milliseconds until the next Ready-but-not-yet-available pod turns available. */
export function nextAvailableIn(pods: k8s.V1Pod[], minReadySeconds: number, now: number): number | undefined {
  let next: number | undefined;
  for (const p of pods) {
    const at = availableAt(p, minReadySeconds);
    if (at === undefined || at < now || minReadySeconds === 0) continue;
    next = Math.min(next ?? Number.POSITIVE_INFINITY, at - now + 1);
  }
  return next;
}

export function controllerRef(o: Meta): k8s.V1OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller);
}

export const isControlledBy = (o: Meta, uid: string | undefined): boolean =>
  !!uid && controllerRef(o)?.uid === uid;

/** The controller reference a workload puts on what it creates. */
export function ownerReferenceTo(owner: Meta, apiVersion: string, kind: string): k8s.V1OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}
