// The situation header's counts, from the server's memory. Pure.
import { nodeDisplayState } from '../console/ui/states.js';
import { TERMINAL_PHASES } from '../fencing/types.js';
import { atOrBelowFloor } from '../console/ui/protection.js';
import { failedNodes, isLive } from './nodes.js';
import type { IncidentInput, Situation } from './types.js';

const IN_PROGRESS = new Set(['Fencing', 'Fenced', 'Releasing']);

export function situationOf(i: IncidentInput): Situation {
  const failed = failedNodes(i.nodes, i.now);
  const f = i.fencing;
  // an announced node with a fence under way is counted once; one whose NodeFence has ended (an
  // earlier incident's) is pending all the same
  const fenced = new Set(f.fences.filter((x) => !TERMINAL_PHASES.has(x.phase)).map((x) => x.node));
  return {
    nodesNotReady: i.nodes.filter((n) => n.ready !== 'Ready').length,
    nodesSuspect: i.nodes.filter((n) => nodeDisplayState(n, i.now) === 'suspect').length,
    podsOnFailedNodes: i.pods.filter((p) => p.node && failed.has(p.node) && isLive(p)).length,
    workloadsBelowDesired: i.workloads.filter((w) => w.readyReplicas < w.replicas).length,
    protectorsAtFloor: i.protectors.filter(atOrBelowFloor).length,
    // announced (the warning window) or detected, not yet running
    fencesPending:
      f.fences.filter((x) => x.phase === 'Detected').length +
      f.upcoming.filter((u) => !fenced.has(u.node)).length,
    fencesInProgress: f.fences.filter((x) => IN_PROGRESS.has(x.phase)).length,
    fencesAwaitingApproval: f.fences.filter((x) => x.phase === 'AwaitingApproval').length,
    fencesHeldByBudget: f.held.filter((h) => h.reason === 'budget').length,
    volumesStuck: i.volumes.filter((v) => v.risk === 'stuck').length,
    volumesSplitBrainRisk: i.volumes.filter((v) => v.risk === 'split-brain-risk').length,
  };
}

/** Nothing unhealthy at all: the calm "Nothing is broken" state. */
export function isCalm(s: Situation): boolean {
  return Object.values(s).every((n) => n === 0);
}
