// The fencing state machine: given what is true now (the node, its Lease, the policy, the
// NodeFence, the budget, what still runs on the node, the clock) it names the one next step.
// Pure, so every path is table-tested; the controller only carries steps out and writes the
// result back into the NodeFence — which is why a restarted controller resumes where the last
// one stopped: the state is the object, never memory.
import type { BudgetVerdict } from './budget.js';
import { cancelledByUser } from './ended.js';
import { cameBack, type NodeFacts, nodeHealth } from './health.js';
import {
  type Attempt,
  durationMs,
  type FencePolicySpec,
  type NodeFence,
  OUT_OF_SERVICE_TAINT,
  type Phase,
  type ReleaseStrategy,
} from './types.js';

export interface FenceWorld {
  now: number;
  policy: FencePolicySpec;
  /** undefined: no Node object by that name */
  node?: NodeFacts;
  fence?: NodeFence;
  budget: BudgetVerdict;
  /** pods still bound to the node, and VolumeAttachments naming it */
  podsOnNode: number;
  attachmentsOnNode: number;
  /** this process is running the fence's agent or verification right now */
  inFlight: boolean;
  /** the fence's FencePolicy was deleted (policy then holds defaults, good for release only) */
  policyMissing?: boolean;
  /**
   * why the policy's exec agent may not run (lib/fenceAgents/policy.ts, judged by the controller
   * with palisade.yaml's credentials namespaces); undefined: it may. No agent run, fence or
   * status query, starts while this is set: the fence holds in Fencing until the policy is fixed
   */
  agentRefused?: string;
}

/** The reason a NodeFence records while its policy's agent is refused. */
export const AGENT_REFUSED = 'AgentRefused';

/**
 * Why a node waits, typed (callers branch on this, never on the text of `why`): 'budget' and
 * 'approval' hold a fence a person may want to see; the others wait for the world to move.
 */
export type WaitReason =
  | 'no-node'
  | 'healthy'
  | 'not-long-enough'
  | 'budget'
  | 'approval'
  /** inside the policy's warning window: announced, cancellable, not yet fenced */
  | 'warning'
  /** the policy is paused: no new fence, and a detected one is held before its agent */
  | 'paused'
  | 'agent-running'
  | 'retry-interval'
  | 'draining'
  | 'node-down'
  | 'failed'
  | 'cancelled'
  | 'not-healthy-since';

export type Decision =
  | { kind: 'wait'; reason: WaitReason; why: string; recheckMs?: number }
  | { kind: 'create'; why: string }
  /**
   * a person's "Fence now" (spec.requestedBy), or a fence created without its first status: record
   * it as Detected, pinning the node's uid and bootID, the agent to run no earlier than fenceAt
   */
  | { kind: 'adopt'; why: string; fenceAt: number }
  /** a finished fence of an earlier incident: replace it with a new one */
  | { kind: 'replace'; why: string }
  /**
   * a finished fence of an earlier incident that a person cancelled during this one, before its
   * fence was detected: record a fresh Detected status, which the cancel then ends (Cancelled)
   */
  | { kind: 'renew'; why: string }
  /** record a phase (or, with the current phase, a new reason and message) */
  | { kind: 'phase'; to: Phase; reason: string; message: string; recheckMs?: number }
  | { kind: 'run-agent'; attempt: number }
  /** an attempt this process no longer runs: its outcome is unknown until verified */
  | { kind: 'interrupted'; attempt: number }
  | { kind: 'verify'; attempt: number }
  | { kind: 'release'; strategy: ReleaseStrategy }
  | { kind: 'recover' };

const RELEASE_RECHECK_MS = 1_000;
const wait = (reason: WaitReason, why: string, recheckMs?: number): Decision => ({
  kind: 'wait',
  reason,
  why,
  recheckMs,
});
const phase = (to: Phase, reason: string, message: string, recheckMs?: number): Decision => ({
  kind: 'phase',
  to,
  reason,
  message,
  recheckMs,
});

export function decide(w: FenceWorld): Decision {
  if (!w.fence) return noFence(w);
  const f = w.fence;
  const gone = nodeGone(w);
  switch (f.status.phase) {
    case 'Detected':
    case 'AwaitingApproval':
      if (gone) return gone;
      if (f.status.detectedAt) return beforeFencing(w);
      // no status written yet (it parses as Detected): a person's Fence now, or a fence whose first
      // status write failed after its create — detected now, its warning window from now
      return f.spec.requestedBy ? adopt(w) : (stopBeforeAgent(w) ?? detectNow(w));
    case 'Fencing':
      return gone ?? fencing(w);
    // a node back (booted again, Ready, heartbeating) before its release ended runs its pods
    // again: releasing them now would start a second copy elsewhere, so the fence recovers
    case 'Fenced':
      return backBeforeReleased(w) ?? { kind: 'release', strategy: w.policy.releaseStrategy };
    case 'Releasing':
      return backBeforeReleased(w) ?? releasing(w);
    case 'Released':
      return released(w);
    default:
      // a person's Fence now on an ended fence: it starts again, as a new fence
      return requestedSinceEnd(f) && w.node ? adopt(w) : terminal(w);
  }
}

/** When an ended fence ended (recovered, or its last condition or step), if it says. */
function endedAtOf(f: NodeFence): number | undefined {
  const ended =
    f.status.recoveredAt ??
    f.status.conditions.find((c) => c.type === 'Processing')?.lastTransitionTime ??
    f.status.steps.at(-1)?.at;
  const t = Date.parse(ended ?? '');
  return Number.isNaN(t) ? undefined : t;
}

/** spec.requestedBy written after the fence ended: a person asked to fence the node again. */
function requestedSinceEnd(f: NodeFence): boolean {
  const at = Date.parse(f.spec.requestedBy?.at ?? '');
  const end = endedAtOf(f);
  return !Number.isNaN(at) && end !== undefined && at > end;
}

/** Before the node is fenced, a vanished or re-created Node ends the fence. */
function nodeGone(w: FenceWorld): Decision | undefined {
  const f = w.fence!;
  if (!w.node) return phase('Cancelled', 'NodeNotFound', `Node ${f.spec.nodeName} no longer exists`);
  if (f.status.nodeUid && w.node.uid !== f.status.nodeUid)
    return phase('Cancelled', 'NodeReplaced', `Node ${f.spec.nodeName} was re-created (new uid)`);
  return undefined;
}

/**
 * A person's "Fence now": a new NodeFence not yet recorded as Detected, or an ended one they
 * asked to fence again. It runs at once once adopted: they confirmed it in the guarded dialog, so
 * there is no warning window, and the budget that held the automatic fence does not hold theirs
 * (a cancel still works until the agent starts).
 */
function adopt(w: FenceWorld): Decision {
  const r = w.fence!.spec.requestedBy!;
  return {
    kind: 'adopt',
    why: `fence requested by ${r.by}${r.reason ? `: ${r.reason}` : ''}`,
    fenceAt: w.now,
  };
}

/**
 * A NodeFence with no status: the controller created it, and the write of its first status failed
 * (a timeout, a webhook that did not answer). It must not run at once for lack of a recorded
 * window: it is detected now and announced for the policy's whole warning window (x30, real
 * control plane at load 15: a fence went from no status to Fencing, with no Detected step).
 */
function detectNow(w: FenceWorld): Decision {
  return {
    kind: 'adopt',
    why: 'detected again: its first status was never written',
    fenceAt: fenceAtFor(w.policy, w.now),
  };
}

function noFence(w: FenceWorld): Decision {
  if (!w.node) return wait('no-node', 'no such node');
  const h = nodeHealth(w.policy, w.node, w.now);
  if (h.healthy) return wait('healthy', 'node is healthy');
  // look again exactly when it will be long enough (at most a second away: conditions move)
  if (!h.longEnough)
    return wait(
      'not-long-enough',
      `${h.why}; not yet long enough to fence`,
      Math.max(10, Math.min(RELEASE_RECHECK_MS, h.dueAt - w.now)),
    );
  if (w.policy.paused) return wait('paused', 'the fence policy is paused: no new fence starts');
  if (!w.budget.allowed)
    return wait('budget', `fencing budget exceeded: ${w.budget.message}`, RELEASE_RECHECK_MS);
  return { kind: 'create', why: h.why };
}

/**
 * Before an agent run: a deleted policy or a node healthy again stops the fence; a person's
 * cancel only until the first agent has run (after that the node may be half-fenced, and the
 * console's guard refuses the cancel for the same reason).
 */
function stopBeforeAgent(w: FenceWorld): Decision | undefined {
  const f = w.fence!;
  if (w.policyMissing)
    return phase('Cancelled', 'PolicyNotFound', `FencePolicy ${f.spec.policy} was deleted`);
  const c = f.spec.cancelRequested;
  if (c && f.status.attempts.length === 0)
    return phase('Cancelled', 'CancelledByUser', `cancelled by ${c.by}${c.reason ? `: ${c.reason}` : ''}`);
  if (nodeHealth(w.policy, w.node!, w.now).healthy)
    return phase('Cancelled', 'NodeRecovered', 'the node is healthy again before it was fenced');
  return undefined;
}

function beforeFencing(w: FenceWorld): Decision {
  const f = w.fence!;
  const stop = stopBeforeAgent(w);
  if (stop) return stop;
  if (w.policy.approval === 'Manual' && !f.spec.approvedBy) {
    if (f.status.phase === 'AwaitingApproval') return wait('approval', 'waiting for approval');
    return phase('AwaitingApproval', 'AwaitingApproval', 'the policy asks a person to approve this fence');
  }
  // the policy's pause holds the fence (it waits for Resume, which reschedules every node)
  if (w.policy.paused) return wait('paused', 'the fence policy is paused: this fence waits for Resume');
  // no agent runs before fenceAt: the window in which the fence is announced and cancellable
  const at = fenceAtOf(f, w.policy);
  if (at !== undefined && w.now < at)
    return wait(
      'warning',
      `fenced automatically at ${new Date(at).toISOString()} unless cancelled`,
      at - w.now,
    );
  const by = f.spec.approvedBy ? `approved by ${f.spec.approvedBy}` : 'automatic policy';
  return phase('Fencing', 'FenceStarted', `fencing ${f.spec.nodeName} (${by})`);
}

/** The policy's warning window in ms ("0s": none). */
export const warningMs = (p: FencePolicySpec) => durationMs(p.warningWindow);

/** When a fence detected at `detectedAt` may run its agent: detection plus the warning window. */
export const fenceAtFor = (p: FencePolicySpec, detectedAt: number) => detectedAt + warningMs(p);

/** The fence's recorded fenceAt; for a fence written without one, detection plus the window. */
export function fenceAtOf(f: NodeFence, p: FencePolicySpec): number | undefined {
  const recorded = Date.parse(f.status.fenceAt ?? '');
  if (!Number.isNaN(recorded)) return recorded;
  const detected = Date.parse(f.status.detectedAt ?? '');
  return Number.isNaN(detected) ? undefined : fenceAtFor(p, detected);
}

const lastAttempt = (f: NodeFence): Attempt | undefined => f.status.attempts.at(-1);

function fencing(w: FenceWorld): Decision {
  const f = w.fence!;
  const last = lastAttempt(f);
  if (w.inFlight) return wait('agent-running', 'the fence agent is running');
  if (last?.result === 'Running') return { kind: 'interrupted', attempt: last.number };
  if (last && (last.result === 'Succeeded' || last.result === 'Interrupted') && !last.verification)
    return unlessRefused(w, { kind: 'verify', attempt: last.number });
  if (last?.verification?.confirmed)
    return phase(
      'Fenced',
      'FenceAgentSucceeded',
      `node fenced: ${last.verification.detail || last.verification.state}`,
    );
  // no attempt yet, or the last one failed (or claimed success that the status query denied)
  const stop = stopBeforeAgent(w);
  if (stop) return stop;
  if (last && last.number >= w.policy.retryCount)
    return phase('Failed', 'FenceAgentFailed', `${last.number} attempt(s) failed: ${failure(last)}`);
  if (last) {
    const due = Date.parse(last.finishedAt ?? last.startedAt) + durationMs(w.policy.retryInterval);
    if (w.now < due) return wait('retry-interval', `retrying after ${failure(last)}`, due - w.now);
  }
  // a person's Fence now was their override of the budget (the guard warned them): not held
  if (!w.budget.allowed && !f.spec.requestedBy)
    return phase(
      'Fencing',
      'BudgetExceeded',
      `fencing budget exceeded: ${w.budget.message}`,
      RELEASE_RECHECK_MS,
    );
  return unlessRefused(w, { kind: 'run-agent', attempt: (last?.number ?? 0) + 1 });
}

/** An agent run (or status query) only when the policy's agent is allowed; else the fence holds, saying why. */
function unlessRefused(w: FenceWorld, d: Decision): Decision {
  if (!w.agentRefused) return d;
  return phase(
    'Fencing',
    AGENT_REFUSED,
    `the agent of FencePolicy ${w.fence!.spec.policy} is refused, so no agent runs until the policy is fixed: ${w.agentRefused}`,
    RELEASE_RECHECK_MS,
  );
}

function failure(a: Attempt): string {
  if (a.verification && !a.verification.confirmed)
    return `the agent reported success but the status query shows ${a.verification.state}`;
  if (a.result === 'TimedOut') return 'the agent timed out';
  return `the agent failed${a.exitCode != null ? ` (exit ${a.exitCode})` : ''}`;
}

const hasOutOfServiceTaint = (n?: NodeFacts) =>
  !!n?.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key && t.effect === OUT_OF_SERVICE_TAINT.effect);

function releasing(w: FenceWorld): Decision {
  if (w.podsOnNode === 0 && w.attachmentsOnNode === 0)
    return phase(
      'Released',
      'RemediationFinishedSuccessfully',
      'no pods and no volume attachments remain on the node',
    );
  const strategy = w.policy.releaseStrategy;
  // act again: resource deletion has more to delete; the taint was removed by someone; or pods
  // the taint manager evicted wait for kube-controller-manager's pod GC sweep (every 20 s), which
  // the fence lets Palisade finish at once
  if (strategy === 'ResourceDeletion' || w.podsOnNode > 0 || (w.node && !hasOutOfServiceTaint(w.node)))
    return { kind: 'release', strategy };
  return wait(
    'draining',
    `waiting for ${w.podsOnNode} pod(s) and ${w.attachmentsOnNode} volume attachment(s) to leave the node`,
    RELEASE_RECHECK_MS,
  );
}

function nodeBack(w: FenceWorld): boolean {
  const fencedAt = Date.parse(w.fence!.status.fencedAt ?? w.fence!.status.detectedAt ?? '');
  return !!w.node && cameBack(w.node, fencedAt, w.fence!.status.nodeBootId ?? undefined, w.now);
}

function backBeforeReleased(w: FenceWorld): Decision | undefined {
  return nodeBack(w) ? { kind: 'recover' } : undefined;
}

function released(w: FenceWorld): Decision {
  if (nodeBack(w)) return { kind: 'recover' };
  return wait(
    'node-down',
    'waiting for the node to come back (booted again, Ready and heartbeating)',
    RELEASE_RECHECK_MS,
  );
}

/**
 * When the node of a finished fence is in a new incident (unhealthy since after the fence
 * ended): that incident's start. A failure or a person's cancel of unknown time is never taken
 * for an older incident's end.
 */
export function newIncidentSince(
  f: NodeFence,
  policy: FencePolicySpec,
  node: NodeFacts,
  now: number,
): number | undefined {
  const endedAt = endedAtOf(f) ?? (heldByEnd(f) ? Number.POSITIVE_INFINITY : 0);
  const h = nodeHealth(policy, node, now);
  return !h.healthy && h.since > endedAt ? h.since : undefined;
}

/** a failure or a person's cancel holds the node for the rest of its incident */
const heldByEnd = (f: NodeFence) => f.status.phase === 'Failed' || cancelledByUser(f);

/** spec.cancelRequested written during the incident that began at `since` */
function cancelledDuring(f: NodeFence, since: number): boolean {
  const at = Date.parse(f.spec.cancelRequested?.at ?? '');
  return !Number.isNaN(at) && at >= since;
}

/** A finished fence: a new incident on the same node replaces it; within its own incident a failure or a person's cancel holds the node. */
function terminal(w: FenceWorld): Decision {
  const f = w.fence!;
  const next = noFence({ ...w, fence: undefined });
  const byUser = cancelledByUser(f);
  // a new incident is judged afresh, whatever ended this fence: a person's cancel or a failure
  // is about one incident, not about the node for ever; a cancel made in this incident, before
  // its fence was detected, is recorded on this NodeFence as a cancel of the new one
  const since = w.node && newIncidentSince(f, w.policy, w.node, w.now);
  if (since !== undefined && cancelledDuring(f, since))
    return { kind: 'renew', why: `cancelled by ${f.spec.cancelRequested!.by} before its fence started` };
  if (since !== undefined) return next.kind === 'create' ? { kind: 'replace', why: next.why } : next;
  // the same incident: a failed fence, or one a person cancelled, holds the node until someone
  // fences it by hand (Fence now) or it comes back
  if (f.status.phase === 'Failed')
    return wait('failed', 'the fence failed: fence the node by hand (Fence now) to try again');
  if (byUser)
    return wait(
      'cancelled',
      'cancelled by a person: this incident is not fenced unless someone fences it now',
    );
  return next.kind === 'create'
    ? wait('not-healthy-since', 'the node has not been healthy since this fence ended')
    : next;
}
