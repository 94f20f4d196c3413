// Whether a node counts as fenced for the guards: its NodeFence (named after it) is Fenced,
// Releasing or Released — the agent ran and a status query confirmed the node powered off or
// cut from its storage — and that fence is about this very node (same uid), not an earlier
// node of the same name. Recovered does not count: the node is back and what runs there now
// runs for real.
import type { Phase } from '../fencing/types.js';
import type { FenceFacts, NodeFacts } from './types.js';

export const FENCED_PHASES: ReadonlySet<Phase> = new Set(['Fenced', 'Releasing', 'Released']);

export interface FenceState {
  fenced: boolean;
  /** one sentence for the dialog: "NodeFence a1-2 is Fenced: ..." */
  text: string;
}

export function fenceState(node: NodeFacts | undefined, nodeName: string, fence?: FenceFacts): FenceState {
  if (!fence || fence.nodeName !== nodeName)
    return { fenced: false, text: `node ${nodeName} is not fenced (no NodeFence for it)` };
  if (node?.uid && fence.nodeUid && node.uid !== fence.nodeUid)
    return {
      fenced: false,
      text: `NodeFence ${fence.name} is about an earlier node named ${nodeName} (uid ${fence.nodeUid}), not this one`,
    };
  if (FENCED_PHASES.has(fence.phase))
    return {
      fenced: true,
      text: `NodeFence ${fence.name} is ${fence.phase}: node ${nodeName} is confirmed powered off or cut from its storage`,
    };
  return {
    fenced: false,
    text: `NodeFence ${fence.name} is ${fence.phase}: node ${nodeName} is not fenced yet`,
  };
}
