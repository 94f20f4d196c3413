// Force deletion (DELETE with gracePeriodSeconds 0) removes the pod from the API at once,
// without waiting for the kubelet to confirm its containers stopped (seed 000). It is safe only
// when nothing can still be running — the rule that also frees an instance ID
// (lib/guard/stopped.ts): the pod was never scheduled, its containers have exited as its
// kubelet reported from a Ready node, its node is fenced, or the Node object is gone
// (Kubernetes' own signal of a permanent partition: PodGC force-deletes such pods itself). Otherwise the reasons say what can go wrong,
// and when a fence is coming for the node the verdict carries it as the safe path: wait.
import { OUT_OF_SERVICE_TAINT } from '../fencing/types.js';
import { type FenceOutlook, isWait, outlookNote } from './fenceOutlook.js';
import { durationWords } from './waitWords.js';
import { fenceState } from './fenced.js';
import { holderStopped, type StopVerdict } from './stopped.js';
import {
  type FenceFacts,
  type ForceDetachFacts,
  KUBECTL_FORCE_DELETE_WARNING,
  type NodeFacts,
  readyWords,
  safe,
  unsafe,
  type Verdict,
} from './types.js';

export interface PodFacts {
  namespace: string;
  name: string;
  uid: string;
  nodeName?: string;
  /** the controller owner, e.g. {kind: 'StatefulSet', name: 'db'} */
  owner?: { kind: string; name: string };
  phase?: string;
  /** metadata.deletionTimestamp, when the pod is already Terminating */
  deletionTimestamp?: string;
  /** ReadWriteOnce(Pod) volumes the pod uses that are attached to its node */
  attachedRwo: { pv: string; claim: string }[];
}

export interface ForceDeleteInput {
  pod: PodFacts;
  /** the pod's node; undefined when the Node object does not exist (or the pod is unscheduled) */
  node?: NodeFacts;
  nodeFence?: FenceFacts;
  /** whether a fence is coming for the node (FencePolicies, the fence's phase) */
  outlook?: FenceOutlook;
  /** the cluster's force-detach setting, the one the Volumes page shows */
  forceDetach?: ForceDetachFacts;
  /** the PodProtectors that select the pod (Podseidon's deletion protection) */
  protectors?: ProtectorFloor[];
}

/** A PodProtector's standing: the lower of its aggregated and estimated available counts. */
export interface ProtectorFloor {
  /** namespace/name */
  key: string;
  minAvailable: number;
  available: number;
}

/** kube-controller-manager's maxWaitForUnmountDuration, when nothing better is known. */
export const DEFAULT_FORCE_DETACH: ForceDetachFacts = {
  enabled: true,
  maxWaitMs: 6 * 60_000,
  source: 'assumed',
};

const WARNINGS = [KUBECTL_FORCE_DELETE_WARNING];

export function judgeForceDelete({
  pod,
  node,
  nodeFence,
  outlook,
  forceDetach,
  protectors = [],
}: ForceDeleteInput): Verdict {
  const notes = [...terminatingNote(pod), ...protectors.flatMap(floorNote)];
  // the rule that also frees an instance ID (lib/guard/stopped.ts): nothing can run any more
  const stop = holderStopped({
    name: `pod ${pod.name}`,
    pod: {
      name: pod.name,
      nodeName: pod.nodeName,
      phase: pod.phase,
      deletionTimestamp: pod.deletionTimestamp,
    },
    node,
    fence: nodeFence,
  });
  if (stop.stopped) return safe([...notes, ...stoppedNotes(stop, pod)], WARNINGS);
  const nodeName = pod.nodeName!;
  const live = node!;
  const fence = fenceState(live, nodeName, nodeFence);
  const coming = outlook && outlookNote(outlook);
  const v = unsafe(
    unsafeReasons(pod, live, forceDetach ?? DEFAULT_FORCE_DETACH),
    [
      ...notes,
      ...finishedNote(pod, live),
      fence.text,
      ...(coming ? [coming] : []),
      ...outOfServiceNote(live),
    ],
    WARNINGS,
  );
  return isWait(outlook) && outlook.node === nodeName ? { ...v, wait: outlook } : v;
}

function stoppedNotes(stop: Extract<StopVerdict, { stopped: true }>, pod: PodFacts): string[] {
  switch (stop.reason) {
    case 'not-scheduled':
      return ['the pod is not scheduled to any node: no container of it runs anywhere'];
    case 'finished':
      return [`the pod's containers have exited (phase ${pod.phase}, reported from its Ready node)`];
    case 'node-gone':
      return [nodeGoneNote(pod.nodeName!)];
    default:
      return [stop.text, ...replacementNote(pod)];
  }
}

/** A terminal phase the node's kubelet cannot confirm (the node is not Ready). */
function finishedNote(pod: PodFacts, node: NodeFacts): string[] {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed'
    ? [
        `the API says the pod ${pod.phase === 'Succeeded' ? 'succeeded' : 'failed'}, but node ${node.name} is ${readyWords(node)}: its kubelet cannot confirm that (the phase may have been written for it, e.g. by the pod garbage collector)`,
      ]
    : [];
}

/** "force-detached after 30 s on an unreachable node (this cluster's setting)" */
export function forceDetachWords(fd: ForceDetachFacts): string {
  if (!fd.enabled)
    return `force detach is disabled on this cluster${fd.source === 'assumed' ? ' (assumed)' : ''}`;
  const where =
    fd.source === 'cluster' ? "this cluster's setting" : "kube-controller-manager's default, assumed";
  return `force-detached after ${durationWords(fd.maxWaitMs)} on an unreachable node: ${where}`;
}

function unsafeReasons(pod: PodFacts, node: NodeFacts, fd: ForceDetachFacts): string[] {
  const reasons = [
    node.ready === 'True'
      ? `node ${node.name} is not fenced: the pod leaves the API at once, but its containers stop only when the kubelet gets to them, and run on until then`
      : `node ${node.name} is ${readyWords(node)} and not fenced: the pod's processes may still run there, and once the pod is gone from the API nothing stops them or shows that they run`,
  ];
  if (pod.owner?.kind === 'StatefulSet')
    reasons.push(
      `${pod.name} belongs to StatefulSet ${pod.owner.name}: the controller creates a replacement with the same name and identity as soon as this pod is gone, so two copies of ${pod.name} may run at once (at-most-one broken)`,
    );
  for (const v of pod.attachedRwo)
    reasons.push(
      `ReadWriteOnce volume ${v.pv} (claim ${v.claim}) is still attached to ${node.name}: once the pod is gone it can be detached (${forceDetachWords(fd)}) and attached to a replacement elsewhere while the old copy still writes to it`,
    );
  return reasons;
}

/**
 * A protector with no disruption left (issue 25, finding 7): the commander must know that the
 * workload cannot lose another pod now. Whether this deletion is admitted is the webhook's call
 * (does this pod still count as available?): the dialog's dry run asks it.
 */
function floorNote(p: ProtectorFloor): string[] {
  if (p.available > p.minAvailable) return [];
  const where = p.available < p.minAvailable ? 'below' : 'at';
  return [
    `PodProtector ${p.key} is ${where} its floor (${p.available} available, minAvailable ${p.minAvailable}): the workload can lose no other pod now; the deletion webhook admits this one only if the pod no longer counts as available (the dry run asks it)`,
  ];
}

function terminatingNote(pod: PodFacts): string[] {
  return pod.deletionTimestamp
    ? [
        `the pod is already Terminating (since ${pod.deletionTimestamp}): force deletion skips the rest of its grace period`,
      ]
    : [];
}

function nodeGoneNote(node: string): string {
  return `the Node object ${node} no longer exists: Kubernetes takes that as confirmation that its processes are gone (PodGC force-deletes such pods itself); a kubelet that comes back registers its Node again, so this holds only if the machine really is gone`;
}

function replacementNote(pod: PodFacts): string[] {
  return pod.owner?.kind === 'StatefulSet'
    ? [`StatefulSet ${pod.owner.name} will create the replacement at once; the old copy can no longer run`]
    : [];
}

function outOfServiceNote(node: NodeFacts): string[] {
  const tainted = node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  return tainted
    ? [
        `node ${node.name} carries the out-of-service taint: someone declared it shut down, but no NodeFence confirmed it`,
      ]
    : [];
}
