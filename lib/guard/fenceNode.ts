// "Fence now": a person asks Palisade to fence a node at once — the incident commander's way past
// a fencing budget that holds automatic fences (many nodes down at once), or past a fence that
// failed or was cancelled. It creates a NodeFence the controller adopts and runs with no warning
// window. Refused when it makes no sense: no node, no policy (so no agent), a fence already under
// way, a Ready node (the controller would cancel it as recovered), a paused policy (it would
// wait). Unsafe while the budget holds fences: when many nodes look down at once, the control
// plane may be the one cut off while the nodes still serve; fencing stops all that runs there.
import { type Phase, TERMINAL_PHASES } from '../fencing/types.js';
import { type FenceFacts, type NodeFacts, readyWords, refused, safe, unsafe, type Verdict } from './types.js';

export interface FenceNodeInput {
  nodeName: string;
  /** undefined when the Node object does not exist */
  node?: NodeFacts;
  /** the FencePolicy that covers the node (the first by name whose selector matches) */
  policy?: { name: string; paused: boolean };
  /** the node's NodeFence, if any */
  fence?: FenceFacts;
  /** why the fencing budget holds the node's automatic fence, if it does */
  heldByBudget?: string;
}

const COMING: ReadonlySet<Phase> = new Set(['Detected', 'AwaitingApproval']);

function underWay(f: FenceFacts): string {
  if (COMING.has(f.phase))
    return `NodeFence ${f.name} is ${f.phase}: a fence of ${f.nodeName} is already coming (approve it, or wait for its warning window)`;
  return `NodeFence ${f.name} is ${f.phase}: ${f.nodeName} is already being fenced or is fenced`;
}

export function judgeFenceNode(i: FenceNodeInput): Verdict {
  const { nodeName: name, node, policy, fence } = i;
  if (!node) return refused(`Node ${name} does not exist: there is nothing to fence`);
  if (!policy)
    return refused(
      `no FencePolicy covers node ${name}: Palisade has no fence agent for it (power it off or cut its storage by hand, confirm, then mark it out of service)`,
    );
  if (fence && !TERMINAL_PHASES.has(fence.phase)) return refused(underWay(fence));
  if (node.ready === 'True')
    return refused(
      `node ${name} is Ready: Palisade fences only a node that is not Ready (the controller would cancel the fence as recovered)`,
    );
  if (policy.paused)
    return refused(
      `FencePolicy ${policy.name} is paused: resume it first (a fence now would wait for Resume)`,
    );
  const notes = [
    `node ${name} is ${readyWords(node)}`,
    `the fence agent of FencePolicy ${policy.name} powers ${name} off or cuts it from its storage at once (no warning window); its pods and volumes are then released and start elsewhere`,
    'a cancel still stops it until the agent starts',
    ...(fence ? [`starts NodeFence ${fence.name} (${fence.phase}) again, as a new fence`] : []),
  ];
  if (i.heldByBudget)
    return unsafe(
      [
        `${i.heldByBudget}; the budget holds automatic fences because when many nodes look down at once, the control plane may be the one cut off while they still serve: fencing ${name} stops everything running there`,
      ],
      notes,
    );
  return safe(notes);
}
