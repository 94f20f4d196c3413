// PV controller decisions: which PersistentVolume a claim may bind to, following
// findMatchingVolume in kube-controller-manager. Pure.
import type * as k8s from '@kubernetes/client-node';
import { labelSelectorMatches } from '../../../lib/kube/labelSelector.js';
import type { NodeInfo } from '../../../lib/kube/nodeSelector.js';
import { volumeReachableFrom } from './nodeAffinity.js';
import { parseQuantity } from '../../../lib/kube/quantity.js';

export function claimKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

/** The claim's requested storage in bytes (undefined when missing or invalid). */
export function requestedStorage(claim: k8s.V1PersistentVolumeClaim): number | undefined {
  return parseQuantity(claim.spec?.resources?.requests?.storage);
}

export function volumeCapacity(pv: k8s.V1PersistentVolume): number | undefined {
  return parseQuantity(pv.spec?.capacity?.storage);
}

/** The volume offers every access mode the claim asks for. */
export function accessModesSatisfy(volumeModes: string[] = [], claimModes: string[] = []): boolean {
  return claimModes.every((m) => volumeModes.includes(m));
}

/** pv.spec.claimRef names this claim (a claimRef without uid is a user's pre-binding). */
export function isVolumeBoundToClaim(
  pv: k8s.V1PersistentVolume,
  claim: k8s.V1PersistentVolumeClaim,
): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref || ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

export interface MatchOptions {
  /** WaitForFirstConsumer: only pre-bound volumes, or volumes for the selected node */
  delayBinding: boolean;
  /** the selected node of a delayed claim, if the scheduler chose one */
  node?: NodeInfo;
}

function fits(pv: k8s.V1PersistentVolume, claim: k8s.V1PersistentVolumeClaim): boolean {
  const s = pv.spec ?? {};
  const c = claim.spec ?? {};
  const need = requestedStorage(claim) ?? 0;
  return (
    !s.claimRef &&
    pv.status?.phase === 'Available' &&
    (s.storageClassName ?? '') === (c.storageClassName ?? '') &&
    accessModesSatisfy(s.accessModes, c.accessModes) &&
    labelSelectorMatches(c.selector as any, pv.metadata?.labels, { nilMatches: true }) &&
    (volumeCapacity(pv) ?? -1) >= need
  );
}

/**
 * The volume the claim should bind to: a volume pre-bound to it, else the smallest
 * Available volume of the same class whose access modes, selector and capacity fit
 * (and, for a delayed claim, that the selected node can reach).
 */
export function findMatchingVolume(
  claim: k8s.V1PersistentVolumeClaim,
  volumes: k8s.V1PersistentVolume[],
  opts: MatchOptions,
): k8s.V1PersistentVolume | undefined {
  let best: k8s.V1PersistentVolume | undefined;
  for (const pv of volumes) {
    if (pv.metadata?.deletionTimestamp) continue;
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== (claim.spec?.volumeMode ?? 'Filesystem')) continue;
    const reachable = !opts.node || volumeReachableFrom(pv, opts.node);
    if (isVolumeBoundToClaim(pv, claim)) return reachable ? pv : undefined;
    if (opts.delayBinding && !opts.node) continue;
    if (!reachable || !fits(pv, claim)) continue;
    if (!best || (volumeCapacity(pv) ?? 0) < (volumeCapacity(best) ?? 0)) best = pv;
  }
  return best;
}
