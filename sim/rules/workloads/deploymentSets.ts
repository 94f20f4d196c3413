// The ReplicaSet a Deployment makes for one pod template: named <deployment>-<hash>,
// with pod-template-hash added to its selector and template so sets never share pods.
import type * as k8s from '@kubernetes/client-node';
import { LABEL_POD_TEMPLATE_HASH } from '../../../lib/kube/wellKnown.js';
import { ownerReferenceTo } from '../../../lib/workloads/pods.js';

export const ANN_REVISION = 'deployment.kubernetes.io/revision';
export const ANN_DESIRED = 'deployment.kubernetes.io/desired-replicas';
export const ANN_MAX = 'deployment.kubernetes.io/max-replicas';

export function revisionOf(o: { metadata?: k8s.V1ObjectMeta }): number {
  const n = Number(o.metadata?.annotations?.[ANN_REVISION]);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

export function newReplicaSet(
  d: k8s.V1Deployment,
  hash: string,
  replicas: number,
  revision: string,
  surge: number,
): k8s.V1ReplicaSet {
  const template = d.spec!.template;
  const labels = { ...(template.metadata?.labels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash };
  const selector = d.spec!.selector;
  const desired = d.spec?.replicas ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata!.name}-${hash}`,
      namespace: d.metadata!.namespace,
      labels,
      annotations: {
        [ANN_REVISION]: revision,
        [ANN_DESIRED]: String(desired),
        [ANN_MAX]: String(desired + surge),
      },
      ownerReferences: [ownerReferenceTo(d, 'apps/v1', 'Deployment')],
    },
    spec: {
      replicas,
      minReadySeconds: d.spec?.minReadySeconds ?? 0,
      selector: {
        ...selector,
        matchLabels: { ...(selector.matchLabels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash },
      },
      template: { metadata: { ...(template.metadata ?? {}), labels }, spec: structuredClone(template.spec) },
    },
  };
}
