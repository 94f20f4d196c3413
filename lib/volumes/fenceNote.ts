// What the Volumes page says about a fence on the node a volume is attached to: a fence under
// way ("NodeFence a2-1 is Fencing"), one coming ("FencePolicy demo fences a2-1 in 8 s"), a
// paused policy, or a node already fenced. Pure: the server gives the typed note per node.
import type { FenceOutlook } from '../guard/fenceOutlook.js';
import { durationWords } from '../guard/waitWords';
import type { Phase } from '../fencing/types.js';

export interface NodeFenceNote {
  node: string;
  /** the node's NodeFence phase, when it has one that has not ended */
  phase?: Phase;
  /** what comes next for it (fence-pending, -in-progress, -awaiting-approval, -paused) */
  outlook?: FenceOutlook;
}

export function fenceNoteText(n: NodeFenceNote, now: number): string {
  const o = n.outlook;
  if (o?.code === 'fence-pending' && o.manual)
    return `FencePolicy ${o.policy} detects ${n.node} ${o.fenceAt > now ? `in ${durationWords(o.fenceAt - now)}` : 'now'}, then waits for a person's approval: approve the fence to release the volume`;
  if (o?.code === 'fence-pending')
    return o.fenceAt > now
      ? `FencePolicy ${o.policy} will fence ${n.node} in ${durationWords(o.fenceAt - now)}: the volume is released after the fence`
      : `FencePolicy ${o.policy} is due to fence ${n.node} now: the volume is released after the fence`;
  if (o?.code === 'fence-awaiting-approval')
    return `NodeFence ${o.fence} waits for a person's approval: approve it to release the volume`;
  if (o?.code === 'fence-held')
    return `the fencing budget holds the fence of ${n.node} (${o.why}): nothing releases the volume yet`;
  if (o?.code === 'fence-paused')
    return `FencePolicy ${o.policy} is paused: no fence releases ${n.node}'s volume`;
  if (o?.code === 'fence-in-progress')
    return o.fenceAt !== undefined && o.fenceAt > now
      ? `NodeFence ${o.fence} fences ${n.node} in ${durationWords(o.fenceAt - now)}: the volume is released after the fence`
      : `fence in progress on ${n.node} (NodeFence ${o.fence} is ${o.phase}): the volume is released after it`;
  if (n.phase) return `NodeFence ${n.node} is ${n.phase}`;
  return '';
}
