// The PV controller's writes. Each is a merge patch carrying the resourceVersion the
// decision was made on, so a stale decision fails with 409 and is retried, never applied.
import type * as k8s from '@kubernetes/client-node';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from '../../../lib/volumes/names.js';
import { mergePatch } from '../runtime/patches.js';

function claimRefOf(claim: k8s.V1PersistentVolumeClaim): k8s.V1ObjectReference {
  const m = claim.metadata ?? {};
  return {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace: m.namespace,
    name: m.name,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Callbacks that remember each written object (see FreshCache). */
export interface Remember {
  volume: (pv: k8s.V1PersistentVolume) => k8s.V1PersistentVolume;
  claim: (c: k8s.V1PersistentVolumeClaim) => k8s.V1PersistentVolumeClaim;
}

export class BinderWrites {
  constructor(
    private readonly core: k8s.CoreV1Api,
    private readonly remember: Remember,
  ) {}

  async volumePhase(pv: k8s.V1PersistentVolume, phase: string, message?: string) {
    if (pv.status?.phase === phase) return pv;
    const body = {
      metadata: { resourceVersion: pv.metadata?.resourceVersion },
      status: { phase, message: message ?? null },
    };
    return this.remember.volume(
      await this.core.patchPersistentVolumeStatus({ name: pv.metadata!.name!, body }, mergePatch),
    );
  }

  async claimPhase(claim: k8s.V1PersistentVolumeClaim, phase: string) {
    if (claim.status?.phase === phase) return claim;
    const body = { metadata: { resourceVersion: claim.metadata?.resourceVersion }, status: { phase } };
    const { name, namespace } = claim.metadata!;
    const out = await this.core.patchNamespacedPersistentVolumeClaimStatus(
      { name: name!, namespace: namespace!, body },
      mergePatch,
    );
    return this.remember.claim(out);
  }

  /** Point the volume at the claim (bound-by-controller unless a user pre-bound it), then phase Bound. */
  async bindVolume(pv: k8s.V1PersistentVolume, claim: k8s.V1PersistentVolumeClaim) {
    const ref = pv.spec?.claimRef;
    if (!ref || ref.uid !== claim.metadata?.uid) {
      const annotations = ref ? undefined : { [ANN_BOUND_BY_CONTROLLER]: 'yes' };
      const body = {
        metadata: { resourceVersion: pv.metadata?.resourceVersion, annotations },
        spec: { claimRef: claimRefOf(claim) },
      };
      pv = this.remember.volume(
        await this.core.patchPersistentVolume({ name: pv.metadata!.name!, body }, mergePatch),
      );
    }
    return this.volumePhase(pv, 'Bound');
  }

  /** spec.volumeName and the bind annotations, then status Bound with the volume's size and modes. */
  async bindClaim(claim: k8s.V1PersistentVolumeClaim, pv: k8s.V1PersistentVolume) {
    const ann = claim.metadata?.annotations ?? {};
    const annotations: Record<string, string> = {};
    const spec: Record<string, string> = {};
    if (!claim.spec?.volumeName) {
      spec.volumeName = pv.metadata!.name!;
      annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
    }
    if (ann[ANN_BIND_COMPLETED] !== 'yes') annotations[ANN_BIND_COMPLETED] = 'yes';
    const { name, namespace } = claim.metadata!;
    if (Object.keys(annotations).length) {
      const body = { metadata: { resourceVersion: claim.metadata?.resourceVersion, annotations }, spec };
      const patched = await this.core.patchNamespacedPersistentVolumeClaim(
        { name: name!, namespace: namespace!, body },
        mergePatch,
      );
      claim = this.remember.claim(patched);
    }
    const status = { phase: 'Bound', accessModes: pv.spec?.accessModes, capacity: pv.spec?.capacity };
    const s = claim.status ?? {};
    if (s.phase === 'Bound' && same(s.accessModes, status.accessModes) && same(s.capacity, status.capacity))
      return claim;
    const body = { metadata: { resourceVersion: claim.metadata?.resourceVersion }, status };
    const out = await this.core.patchNamespacedPersistentVolumeClaimStatus(
      { name: name!, namespace: namespace!, body },
      mergePatch,
    );
    return this.remember.claim(out);
  }

  /** The claim went elsewhere: forget it (a user's pre-binding keeps its name, loses the uid). */
  async unbindVolume(pv: k8s.V1PersistentVolume) {
    const byController = pv.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] === 'yes';
    const body = {
      metadata: {
        resourceVersion: pv.metadata?.resourceVersion,
        annotations: { [ANN_BOUND_BY_CONTROLLER]: null },
      },
      spec: { claimRef: byController ? null : { uid: null, resourceVersion: null } },
    };
    const out = await this.core.patchPersistentVolume({ name: pv.metadata!.name!, body }, mergePatch);
    return this.volumePhase(this.remember.volume(out), 'Available');
  }

  /** A claim without storageClassName gets the default class, as retroactive default assignment does. */
  async assignClass(claim: k8s.V1PersistentVolumeClaim, className: string) {
    const { name, namespace, resourceVersion } = claim.metadata!;
    const body = { metadata: { resourceVersion }, spec: { storageClassName: className } };
    const out = await this.core.patchNamespacedPersistentVolumeClaim(
      { name: name!, namespace: namespace!, body },
      mergePatch,
    );
    return this.remember.claim(out);
  }
}
