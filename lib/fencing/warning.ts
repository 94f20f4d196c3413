// The warning before an automatic fence (issue 18): which nodes a policy will fence that have no
// NodeFence yet, and when. Computed by asking the state machine itself (decide) and the same
// health rule it uses, so the console's "fenced automatically in N s" can never disagree with
// what the controller will do.
import type { FenceWorld } from './machine.js';
import { startOf } from './outlook.js';
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
 * `w` is the machine's world (an ended fence judged under its own policy), `nw` the one a new
 * fence is created in (the policy covering the node now).
 */
export function upcomingOf(w: FenceWorld, nw: FenceWorld = { ...w, fence: undefined }): Upcoming | undefined {
  if (!nw.node || nw.policy.approval === 'Manual' || nw.policyMissing) return undefined;
  if (w.fence && !TERMINAL_PHASES.has(w.fence.status.phase)) return undefined;
  // the console's outlook asks the same question the same way (lib/fencing/outlook.ts)
  const s = startOf(w, nw);
  if (s.kind === 'starts') return { fenceAt: s.fenceAt, paused: false };
  if (s.kind === 'paused' && s.fenceAt !== undefined) return { fenceAt: s.fenceAt, paused: true };
  return undefined;
}
