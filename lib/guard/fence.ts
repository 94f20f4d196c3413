// Approving and cancelling a NodeFence. Approval lets the fence agent power the node off (or
// cut it from its storage): every process there stops, so it is unsafe when the node is Ready
// again, and meaningless unless the fence waits for a decision. Cancellation is honoured only
// until an agent has run: once a node may have been powered off, "cancel" cannot undo it, and
// stopping half-way would leave its pods neither running nor released. A Failed fence may be
// cancelled, which records that a person gave it up.
import type { Phase } from '../fencing/types.js';
import { type FenceFacts, type NodeFacts, refused, safe, unsafe, type Verdict } from './types.js';

const WAITING: ReadonlySet<Phase> = new Set(['Detected', 'AwaitingApproval']);

export interface ApproveFenceInput {
  fence: FenceFacts;
  /** the fenced node; undefined when the Node object does not exist */
  node?: NodeFacts;
}

export function judgeApproveFence({ fence, node }: ApproveFenceInput): Verdict {
  if (!WAITING.has(fence.phase))
    return refused(
      `NodeFence ${fence.name} is ${fence.phase}: only a fence that waits for approval can be approved`,
    );
  if (fence.cancelRequestedBy)
    return refused(`NodeFence ${fence.name}: ${fence.cancelRequestedBy} already asked to cancel it`);
  if (fence.approvedBy) return refused(`NodeFence ${fence.name} is already approved by ${fence.approvedBy}`);
  if (!node) return refused(`Node ${fence.nodeName} no longer exists: there is nothing to fence`);
  if (node.uid && fence.nodeUid && node.uid !== fence.nodeUid)
    return refused(`Node ${fence.nodeName} was re-created (new uid): this fence is about the old node`);
  const effect = `the fence agent powers ${fence.nodeName} off or cuts it from its storage; its pods are then released and started elsewhere`;
  if (node.ready === 'True')
    return unsafe(
      [
        `node ${fence.nodeName} is Ready again: fencing it stops every workload running there, healthy ones included`,
      ],
      [effect],
    );
  return safe([effect]);
}

export interface CancelAnnouncedInput {
  nodeName: string;
  node?: NodeFacts;
  /** the FencePolicy that covers the node, if any */
  policy?: { name: string; paused: boolean };
}

/**
 * Cancelling a fence announced before its NodeFence exists (the node unhealthy, not yet for the
 * policy's duration): a NodeFence is created already cancelled, so the controller never starts
 * one for this incident. Nothing to cancel when no policy covers the node or it is Ready.
 */
export function judgeCancelAnnounced({ nodeName, node, policy }: CancelAnnouncedInput): Verdict {
  if (!node)
    return refused(`NodeFence ${nodeName} not found, and no Node ${nodeName} either: nothing to cancel`);
  if (!policy)
    return refused(
      `NodeFence ${nodeName} not found: no FencePolicy covers ${nodeName}, so no fence is coming`,
    );
  if (node.ready === 'True')
    return refused(`NodeFence ${nodeName} not found: ${nodeName} is Ready, so no fence is coming`);
  return safe([
    `no NodeFence yet: the fence FencePolicy ${policy.name} announced for ${nodeName} is cancelled before it starts, and ${nodeName} stays as it is`,
    `this incident is not fenced unless someone fences it now; once ${nodeName} has been healthy again, a new incident is announced and fenced as usual`,
  ]);
}

export interface CancelFenceInput {
  fence: FenceFacts;
}

export function judgeCancelFence({ fence }: CancelFenceInput): Verdict {
  if (fence.cancelRequestedBy)
    return refused(`NodeFence ${fence.name}: ${fence.cancelRequestedBy} already asked to cancel it`);
  if (fence.phase === 'Failed')
    return safe([
      `NodeFence ${fence.name} already failed: cancelling records that a person gave it up (Fence now fences ${fence.nodeName} again)`,
    ]);
  if (fence.phase === 'Cancelled' || fence.phase === 'Recovered')
    return refused(`NodeFence ${fence.name} is ${fence.phase}: it is over, there is nothing to cancel`);
  if (!WAITING.has(fence.phase))
    return refused(
      `NodeFence ${fence.name} is ${fence.phase}: the fence agent has run (or is running); cancelling cannot undo a fence, and stopping now would leave ${fence.nodeName}'s pods neither running nor released`,
    );
  return safe([
    `the fence stops before any agent runs; ${fence.nodeName} stays as it is, and its pods and volumes stay where they are until someone decides`,
  ]);
}
