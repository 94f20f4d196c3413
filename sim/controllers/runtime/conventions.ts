// Names shared by the simulated control plane, the simulated kubelets and the
// infrastructure. Well-known Kubernetes names where they exist.
import type * as k8s from '@kubernetes/client-node';

/** CSI driver name of the simulated storage. PVs it serves carry spec.csi.driver = this. */
export const CSI_DRIVER = 'sim.palisade.dev';

/** Name the kubelet reports in node.status.volumesInUse / volumesAttached, as kubelet does for CSI. */
export function uniqueVolumeName(pvName: string): string {
  return `kubernetes.io/csi/${CSI_DRIVER}^${pvName}`;
}

/** VolumeAttachment name for (pv, node): deterministic, so create is the compare-and-swap. */
export function attachmentName(pvName: string, nodeName: string): string {
  return `csi-${pvName}-${nodeName}`.replace(/[^a-z0-9.-]/g, '-').slice(0, 253);
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
