// Which object carries a pod's instance-ID map: the one that outlives the pod and keeps the
// instance count. A StatefulSet's or a Job's pods name it as their controller; a Deployment's
// pods name a ReplicaSet, which a rollout replaces, so the map goes one step up, on the
// Deployment (IDs survive the rollout). Anything else — a bare pod, a bare ReplicaSet, another
// controller — has no instance count Palisade can trust, and is refused with the reason.
import type { WorkloadKind } from './types.js';

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

export interface Owner {
  kind: WorkloadKind;
  name: string;
  /** the uid the reference names: a workload re-created under the same name is another one */
  uid?: string;
}

export type OwnerStep =
  | { kind: 'owner'; owner: Owner }
  /** read this ReplicaSet and resolve its own controller with replicaSetOwner() */
  | { kind: 'replicaSet'; name: string; uid?: string }
  | { kind: 'none'; message: string };

const controllerRef = (refs: readonly OwnerReference[] | undefined) =>
  refs?.find((r) => r.controller === true);

const group = (apiVersion: string | undefined) => {
  const v = apiVersion ?? '';
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

const KNOWN = 'a Deployment (through its ReplicaSet), a StatefulSet or a Job';

export function podOwner(pod: string, refs: readonly OwnerReference[] | undefined): OwnerStep {
  const ref = controllerRef(refs);
  if (!ref?.name)
    return {
      kind: 'none',
      message: `pod ${pod} has no controller: instance IDs are kept on ${KNOWN}`,
    };
  const g = group(ref.apiVersion);
  if (g === 'apps' && ref.kind === 'ReplicaSet') return { kind: 'replicaSet', name: ref.name, uid: ref.uid };
  if (g === 'apps' && ref.kind === 'StatefulSet')
    return { kind: 'owner', owner: { kind: 'StatefulSet', name: ref.name, uid: ref.uid } };
  if (g === 'batch' && ref.kind === 'Job')
    return { kind: 'owner', owner: { kind: 'Job', name: ref.name, uid: ref.uid } };
  return {
    kind: 'none',
    message: `pod ${pod} is controlled by ${ref.kind} ${ref.name} (${ref.apiVersion}): instance IDs are kept on ${KNOWN}`,
  };
}

export function replicaSetOwner(replicaSet: string, refs: readonly OwnerReference[] | undefined): OwnerStep {
  const ref = controllerRef(refs);
  if (ref?.name && group(ref.apiVersion) === 'apps' && ref.kind === 'Deployment')
    return { kind: 'owner', owner: { kind: 'Deployment', name: ref.name, uid: ref.uid } };
  return {
    kind: 'none',
    message: ref?.name
      ? `ReplicaSet ${replicaSet} is controlled by ${ref.kind} ${ref.name}, not a Deployment: instance IDs are kept on ${KNOWN}`
      : `ReplicaSet ${replicaSet} has no Deployment: a bare ReplicaSet's IDs would not survive it, so they are kept on ${KNOWN} only`,
  };
}

/** The instance count of a workload object: a Job's parallelism, the others' replicas (default 1). */
export function instanceCount(
  kind: WorkloadKind,
  spec: { replicas?: number | null; parallelism?: number | null } | undefined,
): number {
  const n = kind === 'Job' ? spec?.parallelism : spec?.replicas;
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 1;
}

export interface PodLiveness {
  metadata?: { deletionTimestamp?: unknown } | null;
  status?: { phase?: string | null } | null;
}

/** A pod that can hold an ID: it exists, is not terminating and has not finished. */
export function isLivePod(p: PodLiveness): boolean {
  if (p.metadata?.deletionTimestamp) return false;
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}
