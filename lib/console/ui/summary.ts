// Counts for the summary bar. Pure.
import type { NodeView, PodState, PodView } from '../protocol';
import { type NodeDisplayState, isOverdue, nodeDisplayState } from './states';

export interface Summary {
  nodes: { total: number; byState: Record<NodeDisplayState, number> };
  pods: { total: number; byState: Record<PodState, number>; overdue: number; unscheduled: number };
}

export function emptyNodeCounts(): Record<NodeDisplayState, number> {
  return { ready: 0, suspect: 0, unknown: 0, 'not-ready': 0, cordoned: 0, 'out-of-service': 0 };
}

export function emptyPodCounts(): Record<PodState, number> {
  return { Pending: 0, Running: 0, Ready: 0, Terminating: 0, Succeeded: 0, Failed: 0, Unknown: 0 };
}

export function summarize(nodes: Iterable<NodeView>, pods: Iterable<PodView>, now: number): Summary {
  const nodeCounts = emptyNodeCounts();
  let nodeTotal = 0;
  for (const n of nodes) {
    nodeCounts[nodeDisplayState(n, now)]++;
    nodeTotal++;
  }
  const podCounts = emptyPodCounts();
  let podTotal = 0;
  let overdue = 0;
  let unscheduled = 0;
  for (const p of pods) {
    podCounts[p.state] = (podCounts[p.state] ?? 0) + 1;
    podTotal++;
    if (isOverdue(p, now)) overdue++;
    if (!p.node) unscheduled++;
  }
  return {
    nodes: { total: nodeTotal, byState: nodeCounts },
    pods: { total: podTotal, byState: podCounts, overdue, unscheduled },
  };
}
