// Cordon, uncordon and drain a node, as `kubectl cordon/uncordon/drain` do, judged first.
// - Cordon sets spec.unschedulable: the scheduler places nothing new there; what runs keeps running.
// - Drain cordons, then asks the Eviction API to evict each pod kubectl drain would evict, so
//   PodDisruptionBudgets and Podseidon's PodProtectors decide for each pod (a refusal is the
//   API server's 429, reported, never worked around). It skips what kubectl drain skips: DaemonSet
//   pods (their controller ignores the cordon), mirror pods (the kubelet owns them) and pods
//   already terminating. What kubectl drain refuses without a flag is unsafe here, overridable:
//   a pod no controller re-creates (--force) — and a node that is not Ready, where an eviction
//   only marks pods Terminating until its kubelet returns (fencing is the tool for a dead node).
//   emptyDir data (--delete-emptydir-data) is a warning: the replacement starts empty.
import { readyWords, refused, safe, type NodeFacts, unsafe, type Verdict } from './types.js';

export interface DrainPod {
  namespace: string;
  name: string;
  uid: string;
  /** the kind of its controller (ownerReferences with controller: true), if any */
  controller?: string;
  /** a static pod's mirror (annotation kubernetes.io/config.mirror) */
  mirror: boolean;
  /** it has a deletionTimestamp */
  terminating: boolean;
  /** it mounts an emptyDir volume */
  emptyDir: boolean;
}

/** Why drain leaves a pod where it is (kubectl drain's filters). */
export type DrainSkip = 'daemonset' | 'mirror' | 'terminating';

export const SKIP_WORDS: Record<DrainSkip, string> = {
  daemonset: 'managed by a DaemonSet, which ignores the cordon',
  mirror: 'a static pod: its kubelet owns it',
  terminating: 'already terminating',
};

export interface DrainPlan {
  evict: DrainPod[];
  skipped: { pod: DrainPod; why: DrainSkip }[];
}

const skipOf = (p: DrainPod): DrainSkip | undefined =>
  p.mirror
    ? 'mirror'
    : p.terminating
      ? 'terminating'
      : p.controller === 'DaemonSet'
        ? 'daemonset'
        : undefined;

export function drainPlan(pods: readonly DrainPod[]): DrainPlan {
  const plan: DrainPlan = { evict: [], skipped: [] };
  for (const pod of pods) {
    const why = skipOf(pod);
    if (why) plan.skipped.push({ pod, why });
    else plan.evict.push(pod);
  }
  return plan;
}

export const podRef = (p: Pick<DrainPod, 'namespace' | 'name'>) => `${p.namespace}/${p.name}`;

/** "shop/a, shop/b and 3 more" */
export function someRefs(pods: readonly Pick<DrainPod, 'namespace' | 'name'>[], max = 5): string {
  const shown = pods.slice(0, max).map(podRef).join(', ');
  return pods.length > max ? `${shown} and ${pods.length - max} more` : shown;
}

export interface CordonInput {
  node: NodeFacts;
  unschedulable: boolean;
}

export function judgeCordon({ node, unschedulable }: CordonInput): Verdict {
  if (unschedulable) return refused(`node ${node.name} is already cordoned (spec.unschedulable is true)`);
  return safe([
    `the scheduler places no new pod on ${node.name}; the pods already there keep running`,
    'DaemonSet pods still run there: the DaemonSet controller ignores the cordon',
  ]);
}

export function judgeUncordon({ node, unschedulable }: CordonInput): Verdict {
  if (!unschedulable) return refused(`node ${node.name} is not cordoned (spec.unschedulable is not set)`);
  return safe(
    node.ready === 'True'
      ? [`the scheduler places pods on ${node.name} again`]
      : [
          `node ${node.name} is ${readyWords(node)}: its not-ready or unreachable taint keeps new pods away until it is Ready`,
        ],
  );
}

export interface DrainInput extends CordonInput {
  plan: DrainPlan;
}

export function judgeDrain({ node, unschedulable, plan }: DrainInput): Verdict {
  const reasons: string[] = [];
  if (node.ready !== 'True')
    reasons.push(
      `node ${node.name} is ${readyWords(node)}: an eviction only marks its pods Terminating, and they stay so until its kubelet returns; their replacements (a StatefulSet's above all) wait. Fence the node instead: that releases them safely`,
    );
  const orphans = plan.evict.filter((p) => !p.controller);
  if (orphans.length > 0)
    reasons.push(
      `${orphans.length === 1 ? 'pod' : 'pods'} ${someRefs(orphans)} ${orphans.length === 1 ? 'has' : 'have'} no controller: evicted, ${orphans.length === 1 ? 'it is' : 'they are'} gone for good (kubectl drain refuses without --force)`,
    );
  const emptyDir = plan.evict.filter((p) => p.emptyDir);
  const warnings =
    emptyDir.length > 0
      ? [
          `${someRefs(emptyDir)} ${emptyDir.length === 1 ? 'uses' : 'use'} emptyDir: its data is deleted with the pod (kubectl drain asks for --delete-emptydir-data)`,
        ]
      : [];
  const notes = [
    unschedulable ? `node ${node.name} is already cordoned` : `node ${node.name} is cordoned first`,
    plan.evict.length === 0
      ? 'no pod to evict'
      : `${plan.evict.length} ${plan.evict.length === 1 ? 'pod is' : 'pods are'} evicted through the Eviction API: PodDisruptionBudgets and PodProtectors may refuse some, which then stay (drain again to retry)`,
    ...plan.skipped.map((s) => `${podRef(s.pod)} stays: ${SKIP_WORDS[s.why]}`),
  ];
  return reasons.length > 0 ? unsafe(reasons, notes, warnings) : safe(notes, warnings);
}

/** The outcome of one eviction, from the API server's answer. */
export type EvictionResult =
  | { pod: string; outcome: 'evicted' }
  | { pod: string; outcome: 'gone' }
  /** 429: a PodDisruptionBudget or a PodProtector refused, in the API server's words */
  | { pod: string; outcome: 'refused'; message: string }
  | { pod: string; outcome: 'failed'; message: string };

/** "node a1-2 cordoned; evicted 3 pods; 1 refused: shop/db-0 (…)". */
export function drainOutcome(
  node: string,
  cordoned: boolean,
  results: readonly EvictionResult[],
  dryRun: boolean,
) {
  const verb = dryRun ? 'would be' : 'was';
  const evicted = results.filter((r) => r.outcome === 'evicted' || r.outcome === 'gone');
  const notDone = results.filter((r) => r.outcome === 'refused' || r.outcome === 'failed');
  const parts = [
    cordoned ? `node ${node} ${verb} cordoned` : `node ${node} was already cordoned`,
    `${evicted.length} of ${results.length} ${results.length === 1 ? 'pod' : 'pods'} ${dryRun ? 'would be evicted' : 'evicted'}`,
    ...notDone.map((r) => `${r.pod} ${r.outcome === 'refused' ? 'not evicted' : 'failed'}: ${r.message}`),
  ];
  return `${parts.join('; ')}${dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
}
