// Removing the out-of-service taint (node.kubernetes.io/out-of-service=nodeshutdown:NoExecute).
// The taint is a declaration that the node is shut down; with it PodGC force-deletes the node's
// terminating pods and the attach/detach controller detaches its volumes without waiting for an
// unmount. What can go wrong when it is removed too early:
// - the node is not Ready: the release stops half-way — pods left there stay Terminating, their
//   RWO volumes stay attached (or are force-detached only after 6 minutes), replacements wait;
// - its NodeFence is still Fenced or Releasing: the fencing controller uses the taint to release
//   the node, stalls without it, and puts it back (the console and the controller would fight).
// Removing it re-admits nothing by itself: a node that is not Ready keeps its unreachable /
// not-ready taints, and a Ready node's kubelet stops the containers of pods that were
// force-deleted while it was away. So on a Ready node whose fence is over (Released, Recovered,
// or none) removing it is the expected last step (KEP-2268: the user removes it on recovery).
import { OUT_OF_SERVICE_TAINT } from '../fencing/types.js';
import { type FenceFacts, type NodeFacts, readyWords, refused, safe, unsafe, type Verdict } from './types.js';

export interface RemoveTaintInput {
  node: NodeFacts;
  nodeFence?: FenceFacts;
}

const FENCE_IN_PROGRESS = new Set(['Fenced', 'Releasing']);

export function hasOutOfServiceTaint(node: NodeFacts): boolean {
  return node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
}

export function judgeRemoveOutOfServiceTaint({ node, nodeFence }: RemoveTaintInput): Verdict {
  if (!hasOutOfServiceTaint(node))
    return refused(`node ${node.name} has no ${OUT_OF_SERVICE_TAINT.key} taint to remove`);
  const fence = nodeFence?.nodeName === node.name ? nodeFence : undefined;
  const reasons: string[] = [];
  if (node.ready !== 'True')
    reasons.push(
      `node ${node.name} is ${readyWords(node)}: the taint is what lets Kubernetes release its pods and volumes; without it pods left there stay Terminating, their ReadWriteOnce volumes stay attached (force-detached only after 6 minutes), and their replacements wait`,
    );
  if (fence && FENCE_IN_PROGRESS.has(fence.phase))
    reasons.push(
      `NodeFence ${fence.name} is ${fence.phase}: the fencing controller is releasing the node with this taint; without it the release stalls and the controller puts the taint back`,
    );
  const notes = fence ? [`NodeFence ${fence.name} is ${fence.phase}`] : [];
  if (reasons.length > 0) return unsafe(reasons, notes);
  return safe([
    ...notes,
    `node ${node.name} is Ready: without the taint the scheduler places pods there again and pods that do not tolerate it are no longer evicted`,
    ...(fence?.phase === 'Released'
      ? ['the fencing controller removes the taint itself when it marks the fence Recovered']
      : []),
  ]);
}
