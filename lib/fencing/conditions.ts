// The three conditions a NodeFence carries, in the style of medik8s Fence Agents Remediation:
// Processing (work under way), FenceAgentActionSucceeded (the node is confirmed fenced) and
// Succeeded (its workloads were released). Each phase sets all three, so a reader never has to
// reconstruct them from history; lastTransitionTime moves only when a status changes.
import type { FenceCondition, Phase } from './types.js';

type Status = FenceCondition['status'];
type Triple = [processing: Status, agent: Status, succeeded: Status];

const BY_PHASE: Record<Phase, Triple> = {
  Detected: ['True', 'Unknown', 'Unknown'],
  AwaitingApproval: ['False', 'Unknown', 'Unknown'],
  Fencing: ['True', 'Unknown', 'Unknown'],
  Fenced: ['True', 'True', 'Unknown'],
  Releasing: ['True', 'True', 'Unknown'],
  Released: ['False', 'True', 'True'],
  Recovered: ['False', 'True', 'True'],
  Failed: ['False', 'False', 'False'],
  Cancelled: ['False', 'Unknown', 'False'],
};

export function conditionsFor(
  phase: Phase,
  reason: string,
  message: string,
  at: string,
  previous: FenceCondition[],
): FenceCondition[] {
  const types = ['Processing', 'FenceAgentActionSucceeded', 'Succeeded'] as const;
  return types.map((type, i) => {
    const status = BY_PHASE[phase][i];
    const old = previous.find((c) => c.type === type);
    const moved = !old || old.status !== status;
    // a condition that did not change keeps its reason: it still explains that status
    return moved || i === 0
      ? { type, status, reason, message, lastTransitionTime: moved ? at : old.lastTransitionTime }
      : old;
  });
}
