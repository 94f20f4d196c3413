// Evict one pod through the Eviction API (policy/v1), as kubectl drain does for each pod: the
// one-click rebalance of the incident view's Placement (issue 25, item 4) — replicas that one
// node or rack failure would take together get one of them moved, its controller creating the
// replacement that the scheduler places again. The API server's PodDisruptionBudgets and the
// deletion webhook's PodProtectors still decide (429). Unsafe when it takes a replica away that
// has no replacement coming, or that is not ready to spare: no controller, a node that is not
// Ready (the eviction would only mark it Terminating), the workload below full strength.
import { type DrainPod, podRef } from './drain.js';
import { type NodeFacts, readyWords, refused, safe, unsafe, type Verdict } from './types.js';

/** the pod's controller as read live: its ready replicas against those it wants */
export interface ControllerStrength {
  kind: string;
  name: string;
  ready: number;
  desired: number;
}

export interface EvictInput {
  pod: DrainPod & { nodeName?: string };
  /** the pod's node; undefined when it is not scheduled or the Node is gone */
  node?: NodeFacts;
  /** undefined: the pod has no controller, or it could not be read */
  controller?: ControllerStrength;
}

export function judgeEvict({ pod, node, controller }: EvictInput): Verdict {
  const ref = podRef(pod);
  if (pod.terminating) return refused(`pod ${ref} is already Terminating: there is nothing left to evict`);
  if (pod.mirror)
    return refused(
      `pod ${ref} is a static pod (a mirror of the kubelet's): the kubelet runs it again at once`,
    );
  if (pod.controller === 'DaemonSet')
    return refused(`pod ${ref} belongs to a DaemonSet: its replacement runs on the same node again`);
  const reasons = [...nodeReasons(pod, node), ...controllerReasons(pod, controller)];
  const notes = [
    'the Eviction API decides: a PodDisruptionBudget or PodProtector that allows no disruption now refuses it (429), and the pod stays',
    ...(pod.controller
      ? [
          `its ${pod.controller} creates the replacement, which the scheduler places again: its default spreading by node and zone favours another node, without promising one (a topologySpreadConstraint or anti-affinity on the workload does)`,
        ]
      : []),
  ];
  const warnings = pod.emptyDir ? [`${ref} uses emptyDir: its data is deleted with the pod`] : [];
  return reasons.length > 0 ? unsafe(reasons, notes, warnings) : safe(notes, warnings);
}

function nodeReasons(pod: DrainPod & { nodeName?: string }, node: NodeFacts | undefined): string[] {
  if (!pod.nodeName || !node || node.ready === 'True') return [];
  return [
    `node ${node.name} is ${readyWords(node)}: an eviction only marks the pod Terminating, and it stays so until its kubelet returns; its replacement (a StatefulSet's above all) waits. Fence the node instead: that releases it safely`,
  ];
}

function controllerReasons(pod: DrainPod, c: ControllerStrength | undefined): string[] {
  if (!pod.controller)
    return [`pod ${podRef(pod)} has no controller: evicted, it is gone for good and nothing replaces it`];
  if (!c) return [];
  if (c.ready < c.desired)
    return [
      `${c.kind} ${c.name} has ${c.ready} of ${c.desired} replicas ready: evicting one now leaves ${Math.max(0, c.ready - 1)} until its replacement is ready. Rebalance once it is at full strength`,
    ];
  return [];
}
