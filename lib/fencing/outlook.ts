// What comes for a node that is not fenced yet, as the force-delete and fence-now dialogs and the
// Volumes page say it ("wait: FencePolicy demo fences a2-1 in 8 s"). Not a second reading of the
// rules: the world is built as the controller builds it (lib/fencing/coverage.ts) and the answer
// is the state machine's own next step (decide), looked at one step ahead where the controller
// would take it at once — so the console can never promise a fence the controller will not start,
// or miss one it will. The words are lib/guard's (fenceOutlook.ts, waitWords.ts).
import type { FenceOutlook } from '../guard/fenceOutlook.js';
import type { BudgetVerdict } from './budget.js';
import { fenceWorldOf, type PolicyEntry } from './coverage.js';
import { type NodeFacts, nodeHealth } from './health.js';
import { type Decision, decide, type FenceWorld, fenceAtFor, fenceAtOf } from './machine.js';
import type { FencePolicySpec, NodeFence, Phase } from './types.js';
import { TERMINAL_PHASES } from './types.js';

export interface OutlookInput {
  now: number;
  nodeName: string;
  /** the node with its Lease (lib/fencing/health.ts); undefined: no Node object by that name */
  node?: NodeFacts;
  /** the node's NodeFence, whatever its phase */
  fence?: NodeFence;
  policies: readonly PolicyEntry[];
  /** the budget over a policy's nodes, counted as the controller counts it */
  budget: (spec: FencePolicySpec) => BudgetVerdict;
}

/** Phases the machine passes through at once, without waiting on anything: looked past. */
const PASSING: ReadonlySet<string> = new Set(['FenceStarted']);
const FENCED: ReadonlySet<Phase> = new Set(['Fenced', 'Releasing', 'Released']);

export function fenceOutlook(i: OutlookInput): FenceOutlook {
  const at = i.nodeName;
  // no agent runs in the outlook's world: what still runs on the node matters only after a fence
  const built = fenceWorldOf({ ...i, ...NO_FENCE, fence: i.fence });
  if (!built) return { code: 'no-fence-coming', node: at, why: i.node || i.fence ? 'no-policy' : 'no-node' };
  const w = built.world;
  const f = w.fence;
  if (f && FENCED.has(f.status.phase))
    return decide(w).kind === 'recover'
      ? { code: 'no-fence-coming', node: at, why: 'healthy' }
      : { code: 'no-fence-coming', node: at, why: 'already-fenced' };
  const d = lookAhead(w);
  // a fence under way, or a person's Fence now on an ended one (adopted at once)
  if (f && (!TERMINAL_PHASES.has(f.status.phase) || d.kind === 'adopt')) return underway(w, f, d);
  // an ended fence that is not about a new incident: failed or cancelled in this one (held until
  // someone fences by hand), or the node not unhealthy again since it ended
  if (f && !NEW_INCIDENT.has(d.kind === 'wait' ? d.reason : d.kind))
    return { code: 'no-fence-coming', node: at, why: 'fence-ended' };
  // no fence, or an ended one a new incident replaces: the controller creates the new fence
  // under the policy that covers the node now
  const fresh = f ? fenceWorldOf({ ...i, ...NO_FENCE }) : built;
  if (!fresh) return { code: 'no-fence-coming', node: at, why: 'no-policy' };
  return coming(w, fresh, at);
}

/** An ended fence's decisions that are about a new incident (judged as if no fence were there). */
const NEW_INCIDENT: ReadonlySet<string> = new Set([
  'replace',
  'healthy',
  'not-long-enough',
  'paused',
  'budget',
]);
const NO_FENCE = { fence: undefined, podsOnNode: 0, attachmentsOnNode: 0, inFlight: false };
const at_ = (w: FenceWorld, now: number): FenceWorld => ({ ...w, now });

/** decide(), past a phase the controller records and leaves at once (Detected -> Fencing). */
function lookAhead(w: FenceWorld): Decision {
  const d = decide(w);
  if (d.kind !== 'phase' || !PASSING.has(d.reason) || !w.fence) return d;
  return decide({ ...w, fence: { ...w.fence, status: { ...w.fence.status, phase: d.to } } });
}

/** A NodeFence that has not run its agent to the end yet (Detected, AwaitingApproval, Fencing). */
function underway(w: FenceWorld, f: NodeFence, d: Decision): FenceOutlook {
  const at = f.spec.nodeName;
  const policy = f.spec.policy;
  if (d.kind === 'phase' && (d.to === 'Cancelled' || d.to === 'Failed'))
    return {
      code: 'no-fence-coming',
      node: at,
      why: d.reason === 'NodeRecovered' ? 'healthy' : 'fence-ended',
    };
  if ((d.kind === 'phase' && d.to === 'AwaitingApproval') || (d.kind === 'wait' && d.reason === 'approval'))
    return { code: 'fence-awaiting-approval', node: at, fence: f.metadata.name, policy };
  if (d.kind === 'wait' && d.reason === 'paused') return { code: 'fence-paused', node: at, policy };
  if (d.kind === 'phase' && d.reason === 'BudgetExceeded')
    return { code: 'fence-held', node: at, policy, why: d.message };
  const fenceAt = d.kind === 'adopt' ? d.fenceAt : fenceAtOf(f, w.policy);
  return {
    code: 'fence-in-progress',
    node: at,
    fence: f.metadata.name,
    policy,
    phase: d.kind === 'adopt' ? 'Detected' : f.status.phase,
    ...(fenceAt !== undefined ? { fenceAt } : {}),
  };
}

/** Whether, and when, the machine starts a new fence for a node with no fence under way. */
export type Start =
  /** detected at detectAt; the agent may run at fenceAt (Automatic: detectAt + the warning window) */
  | { kind: 'starts'; detectAt: number; fenceAt: number; manual: boolean }
  /** the policy is paused: it would be due at detectAt */
  | { kind: 'paused'; detectAt?: number; fenceAt?: number }
  /** the budget holds it (now, or when it is due) */
  | { kind: 'held'; why: string }
  | { kind: 'none'; why: 'healthy' | 'no-node' | 'not-due' | 'fence-ended' };

/**
 * A new fence for the node: `w` is the machine's world (with an ended fence, if any: judged under
 * its own policy), `nw` the world a new fence is created in (the policy covering the node now). A
 * start is announced only if the machine itself, given the same facts at that moment, creates
 * the fence (and replaces the ended one).
 */
export function startOf(w: FenceWorld, nw: FenceWorld): Start {
  const d = decide(nw);
  const h = nw.node && nodeHealth(nw.policy, nw.node, nw.now);
  const starts =
    d.kind === 'create' || (d.kind === 'wait' && (d.reason === 'not-long-enough' || d.reason === 'paused'));
  if (starts && h && !h.healthy) {
    // an ended fence is judged under its own policy (the machine's world): due under both
    const oh = w.fence && w.node ? nodeHealth(w.policy, w.node, w.now) : undefined;
    const detectAt = Math.max(nw.now, h.dueAt, oh && !oh.healthy ? oh.dueAt : Number.NEGATIVE_INFINITY);
    const manual = nw.policy.approval === 'Manual';
    // a Manual policy's fence is detected then, and waits for a person's approval
    const fenceAt = manual ? detectAt : fenceAtFor(nw.policy, detectAt);
    // an ended fence must be replaced then (a new incident), as the machine judges it
    const old = w.fence && decide(at_(w, detectAt));
    const held = old?.kind === 'wait' && (old.reason === 'budget' || old.reason === 'paused');
    if (old && old.kind !== 'replace' && !held) return { kind: 'none', why: 'fence-ended' };
    // not long enough yet on a paused policy: when it is, the pause holds it
    if (nw.policy.paused) return { kind: 'paused', detectAt, fenceAt };
    const later = decide(at_(nw, detectAt));
    // over the budget once due: held then, as now
    if (later.kind === 'wait' && later.reason === 'budget') return { kind: 'held', why: later.why };
    if (later.kind !== 'create') return { kind: 'none', why: 'not-due' };
    return { kind: 'starts', detectAt, fenceAt, manual };
  }
  if (d.kind === 'wait' && d.reason === 'paused') return { kind: 'paused' };
  if (d.kind === 'wait' && d.reason === 'budget') return { kind: 'held', why: d.why };
  if (d.kind === 'wait' && d.reason === 'no-node') return { kind: 'none', why: 'no-node' };
  return { kind: 'none', why: 'healthy' };
}

function coming(w: FenceWorld, fresh: { world: FenceWorld; policy: string }, at: string): FenceOutlook {
  const policy = fresh.policy;
  const s = startOf(w, fresh.world);
  switch (s.kind) {
    case 'starts':
      return {
        code: 'fence-pending',
        node: at,
        policy,
        fenceAt: s.fenceAt,
        ...(s.manual ? { manual: true as const } : {}),
      };
    case 'paused':
      return { code: 'fence-paused', node: at, policy };
    case 'held':
      return { code: 'fence-held', node: at, policy, why: s.why };
    case 'none':
      return { code: 'no-fence-coming', node: at, why: s.why };
  }
}
