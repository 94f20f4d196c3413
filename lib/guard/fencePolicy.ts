// Pausing and resuming a FencePolicy (issue 18): the incident commander's brake. Pausing stops
// new fences and holds the ones in their warning window before any agent runs (a fence whose
// agent has run goes on: a pause cannot undo a fence). Resuming lets the held fences whose window
// is over run their agents at once, which is why the console counts it down like a destructive
// action and names them. Both are refused when they would change nothing.
import { refused, safe, type Verdict } from './types.js';

export interface PolicyFacts {
  name: string;
  paused: boolean;
  /** nodes with a NodeFence of this policy that has not run an agent yet (Detected, AwaitingApproval) */
  waiting: string[];
  /** the policy's warning window, e.g. "10s" */
  warningWindow: string;
}

const list = (nodes: string[]) =>
  nodes.length > 5 ? `${nodes.slice(0, 5).join(', ')} and ${nodes.length - 5} more` : nodes.join(', ');

export function judgePausePolicy(p: PolicyFacts): Verdict {
  if (p.paused) return refused(`FencePolicy ${p.name} is already paused`);
  return safe([
    `no new fence starts on the nodes FencePolicy ${p.name} covers until it is resumed`,
    p.waiting.length
      ? `held before their agent: ${list(p.waiting)} (each can still be cancelled)`
      : 'no fence of this policy is waiting for its agent now',
    'fences whose agent has already run go on: a pause cannot undo a fence',
  ]);
}

export function judgeResumePolicy(p: PolicyFacts): Verdict {
  if (!p.paused) return refused(`FencePolicy ${p.name} is not paused`);
  const notes = [
    `FencePolicy ${p.name} fences again: nodes unhealthy long enough get a NodeFence, announced ${p.warningWindow} before their agent runs`,
  ];
  return safe(
    notes,
    p.waiting.length
      ? [`held fences whose warning window is over run their agent at once: ${list(p.waiting)}`]
      : [],
  );
}
