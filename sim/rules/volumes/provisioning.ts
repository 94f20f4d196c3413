// What the simulated CSI external-provisioner creates for a claim: a PersistentVolume
// named pvc-<claim uid>, pre-bound to the claim, reachable from the StorageClass's
// allowed topologies (only the terms that include the selected node for a
// WaitForFirstConsumer class). Pure: the caller creates the object.
import type * as k8s from '@kubernetes/client-node';
import { ANN_PROVISIONED_BY } from '../../../lib/volumes/names.js';
import type { NodeInfo } from '../../../lib/kube/nodeSelector.js';
import { describeTopology, topologyTermMatches, topologyToNodeSelectorTerm } from './nodeAffinity.js';
import { parseQuantity } from '../../../lib/kube/quantity.js';

/** Access modes the simulated driver can serve. */
export const SUPPORTED_ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'];

export type ProvisionPlan = { ok: true; volume: k8s.V1PersistentVolume } | { ok: false; error: string };

export interface ProvisionInput {
  claim: k8s.V1PersistentVolumeClaim;
  storageClass: k8s.V1StorageClass;
  driver: string;
  /** the claim's volume.kubernetes.io/selected-node, if set */
  selectedNodeName?: string;
  /** that node, if it exists */
  selectedNode?: NodeInfo;
}

export function provisionedVolumeName(claim: k8s.V1PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid}`;
}

/** The event message of a failed attempt, as the external-provisioner words it. */
export function provisioningFailedMessage(className: string, error: string): string {
  return `failed to provision volume with StorageClass "${className}": ${error}`;
}

function claimErrors(claim: k8s.V1PersistentVolumeClaim, driver: string): string | undefined {
  if (claim.spec?.selector) return 'claim Selector is not supported';
  if (claim.spec?.dataSource || claim.spec?.dataSourceRef) return 'volume data sources are not supported';
  if (parseQuantity(claim.spec?.resources?.requests?.storage) === undefined)
    return 'claim.Spec.Resources.Requests[storage] is missing or invalid';
  const modes = claim.spec?.accessModes ?? [];
  if (modes.length === 0) return 'claim has no access modes';
  const bad = modes.find((m) => !SUPPORTED_ACCESS_MODES.includes(m));
  if (bad)
    return `rpc error: code = InvalidArgument desc = volume capability access mode ${bad} is not supported by driver ${driver}`;
  return undefined;
}

/** Node affinity for the new volume, or an error when the selected node cannot reach the storage. */
export function provisionedAffinity(
  input: ProvisionInput,
): { ok: true; terms?: k8s.V1NodeSelectorTerm[] } | { ok: false; error: string } {
  const allowed = input.storageClass.allowedTopologies ?? [];
  if (input.storageClass.volumeBindingMode !== 'WaitForFirstConsumer') {
    return { ok: true, terms: allowed.length ? allowed.map(topologyToNodeSelectorTerm) : undefined };
  }
  const name = input.selectedNodeName;
  if (!name) return { ok: false, error: 'the claim has no selected node' };
  if (!input.selectedNode) return { ok: false, error: `failed to get target node: node "${name}" not found` };
  if (allowed.length === 0) return { ok: true };
  const reachable = allowed.filter((t) => topologyTermMatches(t, input.selectedNode!.labels));
  if (reachable.length === 0) {
    const topo = describeTopology(allowed, input.selectedNode.labels);
    return {
      ok: false,
      error: `error generating accessibility requirements: selected node "${name}" topology "${topo}" is not in allowed topologies`,
    };
  }
  return { ok: true, terms: reachable.map(topologyToNodeSelectorTerm) };
}

export function planProvisionedVolume(input: ProvisionInput): ProvisionPlan {
  const { claim, storageClass: sc, driver } = input;
  const bad = claimErrors(claim, driver);
  if (bad) return { ok: false, error: bad };
  const affinity = provisionedAffinity(input);
  if (!affinity.ok) return affinity;
  const name = provisionedVolumeName(claim);
  const volume: k8s.V1PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANN_PROVISIONED_BY]: driver } },
    spec: {
      accessModes: [...(claim.spec?.accessModes ?? [])],
      capacity: { storage: claim.spec!.resources!.requests!.storage },
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: claim.metadata?.namespace,
        name: claim.metadata?.name,
        uid: claim.metadata?.uid,
        resourceVersion: claim.metadata?.resourceVersion,
      },
      csi: { driver, volumeHandle: name, volumeAttributes: { ...(sc.parameters ?? {}) } },
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: sc.metadata?.name,
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      mountOptions: sc.mountOptions ? [...sc.mountOptions] : undefined,
      nodeAffinity: affinity.terms ? { required: { nodeSelectorTerms: affinity.terms } } : undefined,
    },
  };
  return { ok: true, volume };
}
