// Where a failed node stands with fencing: its NodeFence (if a current one), a fence announced
// for it (the warning window), a fence the controller holds, and whether any policy covers it.
// Both the at-risk list and the remediation rows start from here. Pure.
import { TERMINAL_PHASES } from '../fencing/types.js';
import type { FenceGlance, FencingInput, UpcomingFence } from './types.js';

export interface FenceContext {
  node: string;
  fence?: FenceGlance;
  upcoming?: UpcomingFence;
  held?: { reason: 'budget' | 'approval' | 'paused'; why: string };
  covered: boolean;
}

export function fenceContextOf(f: FencingInput, node: string): FenceContext {
  const fence = f.fences.find((x) => x.node === node);
  const upcoming = f.upcoming.find((u) => u.node === node);
  // a Recovered fence belongs to an earlier incident: the node failing again is a new one; so
  // does any ended fence of a node a fence is announced for (the controller announces a node
  // only when its next incident is judged afresh)
  const earlier = fence && (fence.phase === 'Recovered' || (upcoming && TERMINAL_PHASES.has(fence.phase)));
  const current = fence && !earlier ? fence : undefined;
  const held = f.held.find((h) => h.node === node);
  return {
    node,
    ...(current ? { fence: current } : {}),
    ...(upcoming ? { upcoming } : {}),
    ...(held ? { held: { reason: held.reason, why: held.why } } : {}),
    covered: f.enabled && (f.covered === 'all' || f.covered.has(node)),
  };
}

/** A fence that is over without fencing the node (the node still needs one). */
export const gaveUp = (fence: FenceGlance) => TERMINAL_PHASES.has(fence.phase) && fence.phase !== 'Recovered';
