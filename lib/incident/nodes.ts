// Which nodes count as failed for the incident view: not Ready, suspect (heartbeats late on a
// Ready node) or out of service. Cordoned alone is a person's choice, not a failure.
import type { NodeView } from '../console/protocol.js';
import { type NodeDisplayState, nodeDisplayState } from '../console/ui/states';

const FAILED: ReadonlySet<NodeDisplayState> = new Set(['unknown', 'not-ready', 'suspect', 'out-of-service']);

export function isFailed(state: NodeDisplayState): boolean {
  return FAILED.has(state);
}

/** node name -> its display state, for the failed nodes only */
export function failedNodes(nodes: NodeView[], now: number): Map<string, NodeDisplayState> {
  const out = new Map<string, NodeDisplayState>();
  for (const n of nodes) {
    const s = nodeDisplayState(n, now);
    if (isFailed(s)) out.set(n.name, s);
  }
  return out;
}

/** A pod that still counts: not finished. */
export const isLive = (p: { phase?: string }) => p.phase !== 'Succeeded' && p.phase !== 'Failed';

/** How many of these nodes count as failed now: the map's zone and rack roll-ups. */
export function failedCount(nodes: Iterable<NodeView>, now: number): number {
  let n = 0;
  for (const node of nodes) if (isFailed(nodeDisplayState(node, now))) n++;
  return n;
}
