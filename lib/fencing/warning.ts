// The warning before an automatic fence (issue 18): which nodes a policy will fence that have no
// NodeFence yet, and when. Computed by asking the state machine itself (decide) and the same
// health rule it uses, so the console's "fenced automatically in N s" can never disagree with
// what the controller will do.
import { nodeHealth } from './health.js';
import { decide, type FenceWorld, fenceAtFor } from './machine.js';
import { TERMINAL_PHASES } from './types.js';

export interface Upcoming {
  /** when the agent may run, if nothing changes (ms since epoch) */
  fenceAt: number;
  /** the policy is paused: nothing starts until it is resumed */
  paused: boolean;
}

/**
 * A node the policy will fence automatically, not yet detected (no NodeFence, or only a finished
 * one the next incident replaces): unhealthy but not long enough yet (fenceAt = when it will be,
 * plus the warning window), or long enough and about to be detected. Manual policies fence nothing
 * on their own, and a node the budget holds has no time to announce (the Fencing page lists it).
 */
export function upcomingOf(w: FenceWorld): Upcoming | undefined {
  if (!w.node || w.policy.approval === 'Manual' || w.policyMissing) return undefined;
  if (w.fence && !TERMINAL_PHASES.has(w.fence.status.phase)) return undefined;
  const h = nodeHealth(w.policy, w.node, w.now);
  if (h.healthy) return undefined;
  const d = decide(w);
  const due = d.kind === 'create' || d.kind === 'replace';
  const waiting = d.kind === 'wait' && (d.reason === 'not-long-enough' || d.reason === 'paused');
  if (!due && !waiting) return undefined;
  const detectAt = Math.max(w.now, h.dueAt);
  return { fenceAt: fenceAtFor(w.policy, detectAt), paused: w.policy.paused };
}
