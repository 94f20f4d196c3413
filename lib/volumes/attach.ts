// Attach/detach controller decisions on the attach side: which pods need which
// volumes on which nodes, and where a single-node volume must not be attached because
// another node still holds it (the Multi-Attach error). Pure.
import type * as k8s from '@kubernetes/client-node';

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
  node: string;
}

export function podRef(pod: k8s.V1Pod): PodRef {
  const m = pod.metadata ?? {};
  return {
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    node: pod.spec?.nodeName ?? '',
  };
}

/** Claims the pod mounts, including generic ephemeral volumes' claims (<pod>-<volume>). */
export function claimNamesOfPod(pod: k8s.V1Pod): string[] {
  const out: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) out.push(`${pod.metadata?.name}-${v.name}`);
  }
  return out;
}

/**
 * A pod holds its volumes on its node from scheduling until it is terminal or its
 * object is gone. A Terminating pod still holds them: its containers may be running.
 */
export function podHoldsVolumes(pod: k8s.V1Pod): boolean {
  const phase = pod.status?.phase;
  return !!pod.spec?.nodeName && phase !== 'Succeeded' && phase !== 'Failed';
}

/** IsMultiAttachAllowed: only ReadWriteMany/ReadOnlyMany (or no modes at all) may attach to many nodes. */
export function multiAttachAllowed(accessModes: string[] = []): boolean {
  if (accessModes.length === 0) return true;
  return accessModes.some((m) => m === 'ReadWriteMany' || m === 'ReadOnlyMany');
}

export interface AttachPlanInput {
  accessModes?: string[];
  /** pods that need the volume, in the order they should win (oldest first) */
  wanting: PodRef[];
  /** nodes that hold an attachment now, including ones being detached */
  attachedNodes: string[];
  /** nodes that exist: the controller attaches only to those */
  attachable: (node: string) => boolean;
}

export interface BlockedAttach {
  node: string;
  /** the pods on `node` that wait for the volume */
  pods: PodRef[];
  attachedTo: string[];
  /** pods on `attachedTo` nodes that still need the volume */
  blockers: PodRef[];
}

export interface AttachPlan {
  attach: string[];
  blocked: BlockedAttach[];
}

function byNode(pods: PodRef[]): Map<string, PodRef[]> {
  const m = new Map<string, PodRef[]>();
  for (const p of pods) m.set(p.node, [...(m.get(p.node) ?? []), p]);
  return m;
}

export function planAttachments(input: AttachPlanInput): AttachPlan {
  const plan: AttachPlan = { attach: [], blocked: [] };
  const wanted = byNode(input.wanting);
  const occupied = [...new Set(input.attachedNodes)];
  const exclusive = !multiAttachAllowed(input.accessModes);
  for (const [node, pods] of wanted) {
    if (occupied.includes(node) || !input.attachable(node)) continue;
    const others = exclusive ? occupied.filter((n) => n !== node) : [];
    if (others.length) {
      const blockers = others.flatMap((n) => wanted.get(n) ?? []);
      plan.blocked.push({ node, pods, attachedTo: others, blockers });
      continue;
    }
    plan.attach.push(node);
    occupied.push(node);
  }
  return plan;
}

/**
 * The FailedAttachVolume message the attach/detach controller records on a waiting
 * pod. Pods of other namespaces are only counted, never named, as in Kubernetes.
 */
export function multiAttachMessage(pvName: string, pod: PodRef, blockers: PodRef[]): string {
  const prefix = `Multi-Attach error for volume "${pvName}"`;
  if (blockers.length === 0)
    return `${prefix} Volume is already exclusively attached to one node and can't be attached to another`;
  const local = blockers.filter((b) => b.namespace === pod.namespace).map((b) => b.name);
  const others = blockers.length - local.length;
  let msg = `Volume is already used by ${others} pod(s) in different namespaces`;
  if (local.length) {
    msg = `Volume is already used by pod(s) ${local.join(', ')}`;
    if (others > 0) msg += ` and ${others} pod(s) in different namespaces`;
  }
  return `${prefix} ${msg}`;
}

/** The SuccessfulAttachVolume message recorded on pods once the volume is attached. */
export function attachSucceededMessage(pvName: string): string {
  return `AttachVolume.Attach succeeded for volume "${pvName}"`;
}
