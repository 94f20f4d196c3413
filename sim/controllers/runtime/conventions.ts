// Names shared by the simulated control plane, the simulated kubelets and the
// infrastructure. Well-known Kubernetes names where they exist.
import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';

/** CSI driver name of the simulated storage. PVs it serves carry spec.csi.driver = this. */
export const CSI_DRIVER = 'sim.palisade.dev';

/** Name the kubelet reports in node.status.volumesInUse / volumesAttached, as kubelet does for CSI. */
export function uniqueVolumeName(pvName: string): string {
  return `kubernetes.io/csi/${CSI_DRIVER}^${pvName}`;
}

/**
 * VolumeAttachment name for a CSI volume on a node, as kube-controller-manager's CSI attacher
 * names it: csi-<sha256 of volume handle, driver and node>. Deterministic, so create is the
 * compare-and-swap, and the kubelet finds the attachment whichever controller made it.
 */
export function attachmentName(volumeHandle: string, nodeName: string, driver = CSI_DRIVER): string {
  return `csi-${createHash('sha256').update(`${volumeHandle}${driver}${nodeName}`).digest('hex')}`;
}

/** the handle the storage knows a PV by (the simulated provisioner uses the PV's name) */
export function volumeHandleOf(pv: k8s.V1PersistentVolume | undefined, pvName: string): string {
  return pv?.spec?.csi?.volumeHandle ?? pvName;
}

export * from '../../../lib/kube/wellKnown.js';

/** Pod annotations the simulated kubelet honours (durations in milliseconds). */
export const ANN_READY_AFTER_MS = 'sim.palisade.dev/ready-after-ms';
export const ANN_PRESTOP_MS = 'sim.palisade.dev/prestop-ms';
/** how long the process takes to exit after SIGTERM; "never" ignores SIGTERM */
export const ANN_SIGTERM_EXIT_MS = 'sim.palisade.dev/sigterm-exit-ms';

export function nodeReady(node: k8s.V1Node | undefined): 'True' | 'False' | 'Unknown' {
  const c = node?.status?.conditions?.find((x) => x.type === 'Ready');
  return (c?.status as 'True' | 'False' | 'Unknown' | undefined) ?? 'Unknown';
}

export function hasTaint(node: k8s.V1Node | undefined, key: string, effect?: string): boolean {
  return (node?.spec?.taints ?? []).some((t) => t.key === key && (!effect || t.effect === effect));
}

export function podKey(p: { metadata?: { namespace?: string; name?: string } }): string {
  return `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
}

export function isTerminal(p: k8s.V1Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

export function controllerOf(o: {
  metadata?: { ownerReferences?: k8s.V1OwnerReference[] };
}): k8s.V1OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller);
}
