// Live reads for the guards: every action decides on objects read from the API a moment ago,
// never on the informer cache (which may lag a write another person just made). Each reader
// turns Kubernetes objects into the guard's small fact shapes.
import type * as k8s from '@kubernetes/client-node';
import { FENCE_PLURAL, GROUP, type NodeFence, parseNodeFence, VERSION } from '../../lib/fencing/types.js';
import type { FenceFacts, NodeFacts, ReadyStatus } from '../../lib/guard/types.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';

export const FENCE_API = { group: GROUP, version: VERSION, plural: FENCE_PLURAL } as const;

export function nodeFacts(n: k8s.V1Node): NodeFacts {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return {
    name: n.metadata?.name ?? '',
    uid: n.metadata?.uid,
    ready: (ready === 'True' || ready === 'False' ? ready : 'Unknown') as ReadyStatus,
    taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value, effect: t.effect })),
    ...(n.status?.nodeInfo?.bootID ? { bootId: n.status.nodeInfo.bootID } : {}),
  };
}

export const readNode = (apis: ActionApis, name: string) => orMissing(apis.core.readNode({ name }));

export function fenceFacts(f: NodeFence): FenceFacts {
  return {
    name: f.metadata.name,
    nodeName: f.spec.nodeName,
    phase: f.status.phase,
    nodeUid: f.status.nodeUid ?? undefined,
    nodeBootId: f.status.nodeBootId ?? undefined,
    approvedBy: f.spec.approvedBy ?? undefined,
    cancelRequestedBy: f.spec.cancelRequested?.by,
  };
}

export interface LiveFence {
  fence: NodeFence;
  /** the object as the API sent it, for its uid and resourceVersion */
  raw: { metadata?: k8s.V1ObjectMeta };
}

/** The NodeFence by name; undefined when there is none (or the CRD is not installed). */
export async function readFence(apis: ActionApis, name: string): Promise<LiveFence | undefined> {
  const raw = await orMissing(apis.custom.getClusterCustomObject({ ...FENCE_API, name }));
  if (!raw) return undefined;
  const parsed = parseNodeFence(raw);
  // an object Palisade cannot read is never taken as proof of anything
  if (!parsed.ok)
    throw new ActionError('PRECONDITION_FAILED', `NodeFence ${name} is malformed: ${parsed.error}`);
  return { fence: parsed.value, raw: raw as LiveFence['raw'] };
}

/** The fence about a node, as guard facts; a malformed one counts as no fence (fail closed). */
export async function fenceOfNode(apis: ActionApis, node: string): Promise<FenceFacts | undefined> {
  try {
    const f = await readFence(apis, node);
    return f && fenceFacts(f.fence);
  } catch (e) {
    if (e instanceof ActionError) return undefined;
    throw e;
  }
}

/** The claim names a pod's volumes refer to (generic ephemeral volumes included). */
export function claimsOf(pod: k8s.V1Pod): string[] {
  return (pod.spec?.volumes ?? []).flatMap((v) => {
    if (v.persistentVolumeClaim) return [v.persistentVolumeClaim.claimName];
    if (v.ephemeral) return [`${pod.metadata?.name}-${v.name}`];
    return [];
  });
}

const RWO = ['ReadWriteOnce', 'ReadWriteOncePod'];

/** The pod's ReadWriteOnce(Pod) volumes that have a VolumeAttachment to its node. */
export async function attachedRwo(
  apis: ActionApis,
  pod: k8s.V1Pod,
): Promise<{ pv: string; claim: string }[]> {
  const node = pod.spec?.nodeName;
  const claims = claimsOf(pod);
  if (!node || claims.length === 0) return [];
  const vas = (await apis.storage.listVolumeAttachment()).items.filter((va) => va.spec.nodeName === node);
  const out: { pv: string; claim: string }[] = [];
  for (const claim of claims) {
    const pvc = await orMissing(
      apis.core.readNamespacedPersistentVolumeClaim({ namespace: pod.metadata!.namespace!, name: claim }),
    );
    const pv = pvc?.spec?.volumeName;
    const modes = pvc?.status?.accessModes ?? pvc?.spec?.accessModes ?? [];
    if (!pv || !modes.some((m) => RWO.includes(m))) continue;
    if (vas.some((va) => va.spec.source.persistentVolumeName === pv)) out.push({ pv, claim });
  }
  return out;
}

/** "namespace/name" of the pods on a node (not finished) that use a claim. */
export async function podsUsingClaim(
  apis: ActionApis,
  node: string,
  claim: { namespace: string; name: string },
): Promise<string[]> {
  const pods = await apis.core.listNamespacedPod({
    namespace: claim.namespace,
    fieldSelector: `spec.nodeName=${node}`,
  });
  return pods.items
    .filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
    .filter((p) => claimsOf(p).includes(claim.name))
    .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
}

/** Whether the node's kubelet lists the CSI volume in node.status.volumesInUse. */
export function mountedOn(node: k8s.V1Node | undefined, driver: string, handle: string): boolean {
  return (node?.status?.volumesInUse ?? []).includes(`kubernetes.io/csi/${driver}^${handle}`);
}

/**
 * A pod read live, with its node and that node's NodeFence (undefined when it has none), and
 * whatever else the action needs about the pod (`more`), read beside them.
 */
export async function readPodOnNode<X>(
  apis: ActionApis,
  namespace: string,
  name: string,
  more: (pod: k8s.V1Pod) => Promise<X>,
) {
  const pod = await orMissing(apis.core.readNamespacedPod({ namespace, name }));
  if (!pod) throw new ActionError('NOT_FOUND', `pod ${namespace}/${name} not found`);
  const nodeName = pod.spec?.nodeName;
  const [node, fence, extra] = await Promise.all([
    nodeName ? readNode(apis, nodeName) : undefined,
    nodeName ? fenceOfNode(apis, nodeName) : undefined,
    more(pod),
  ]);
  return { pod, nodeName, node, fence, extra };
}
