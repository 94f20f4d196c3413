// The pods and claims a StatefulSet stamps out for one ordinal: stable name, identity
// labels, hostname/subdomain, and volumes that point at the ordinal's own PVCs.
import type * as k8s from '@kubernetes/client-node';
import { LABEL_POD_INDEX, LABEL_REVISION_HASH, LABEL_STS_POD_NAME } from '../../../lib/kube/wellKnown.js';
import { ownerReferenceTo } from '../../../lib/workloads/pods.js';
import { claimName, podName } from './statefulSet.js';

/** The name of the set's revision for a template hash, e.g. web-6b5c9d7f8. */
export const revisionName = (set: string, hash: string) => `${set}-${hash}`;

export function statefulSetClaims(set: k8s.V1StatefulSet, ordinal: number): k8s.V1PersistentVolumeClaim[] {
  const setName = set.metadata!.name!;
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(t.metadata!.name!, setName, ordinal),
      namespace: set.metadata!.namespace,
      labels: { ...(t.metadata?.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
    },
    spec: structuredClone(t.spec),
  }));
}

function claimVolumes(set: k8s.V1StatefulSet, ordinal: number, template: k8s.V1PodSpec): k8s.V1Volume[] {
  const setName = set.metadata!.name!;
  const claims = set.spec?.volumeClaimTemplates ?? [];
  const claimed = new Set(claims.map((t) => t.metadata!.name!));
  return [
    ...(template.volumes ?? []).filter((v) => !claimed.has(v.name)),
    ...claims.map((t) => ({
      name: t.metadata!.name!,
      persistentVolumeClaim: { claimName: claimName(t.metadata!.name!, setName, ordinal) },
    })),
  ];
}

export function statefulSetPod(
  set: k8s.V1StatefulSet,
  ordinal: number,
  revision: string,
  template: k8s.V1PodTemplateSpec,
): k8s.V1Pod {
  const name = podName(set.metadata!.name!, ordinal);
  const spec = structuredClone(template.spec!);
  const volumes = claimVolumes(set, ordinal, spec);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata!.namespace,
      labels: {
        ...(template.metadata?.labels ?? {}),
        [LABEL_STS_POD_NAME]: name,
        [LABEL_POD_INDEX]: String(ordinal),
        [LABEL_REVISION_HASH]: revision,
      },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [ownerReferenceTo(set, 'apps/v1', 'StatefulSet')],
    },
    spec: {
      ...spec,
      hostname: name,
      ...(set.spec?.serviceName ? { subdomain: set.spec.serviceName } : {}),
      ...(volumes.length ? { volumes } : {}),
    },
  };
}
