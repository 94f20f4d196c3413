// Building the next NodeFence status from a decision: the phase with its three conditions, a
// step for every phase change, and the timestamps the console and the recovery rule read.
import { conditionsFor } from '../../lib/fencing/conditions.js';
import type { Attempt, NodeFence, Phase, Released } from '../../lib/fencing/types.js';

export const isoNow = (now: number) => new Date(now).toISOString();

const STAMP: Partial<Record<Phase, 'fencedAt' | 'releasedAt' | 'recoveredAt'>> = {
  Fenced: 'fencedAt',
  Released: 'releasedAt',
  Recovered: 'recoveredAt',
};

/**
 * A copy of the fence in `to`, with conditions, step and timestamp; same phase: reason/message
 * only. `released` names what the step let go of (pods, VolumeAttachments) for the record.
 */
export function withPhase(
  f: NodeFence,
  to: Phase,
  reason: string,
  message: string,
  now: number,
  released?: Released,
): NodeFence {
  const at = isoNow(now);
  const moved = f.status.phase !== to;
  const step = { phase: to, at, message, ...(released ? { released } : {}) };
  const status = {
    ...f.status,
    phase: to,
    message,
    conditions: conditionsFor(to, reason, message, at, f.status.conditions),
    steps: moved ? [...f.status.steps, step] : f.status.steps,
  };
  const stamp = STAMP[to];
  if (moved && stamp) status[stamp] = at;
  return { ...f, status };
}

/** The first status of a new fence (or of an ended one started again). */
export function detected(
  f: NodeFence,
  node: { uid: string; bootId?: string },
  why: string,
  now: number,
  /** when the agent may run: now plus the policy's warning window */
  fenceAt: number = now,
): NodeFence {
  const at = isoNow(now);
  const conditions = conditionsFor('Detected', 'RemediationStarted', why, at, []);
  const steps = [{ phase: 'Detected' as Phase, at, message: why }];
  // a fresh status: an ended fence started again (Fence now) keeps nothing of its last run
  return {
    ...f,
    status: {
      phase: 'Detected',
      nodeUid: node.uid,
      nodeBootId: node.bootId,
      detectedAt: at,
      fenceAt: isoNow(fenceAt),
      message: why,
      conditions,
      steps,
      attempts: [],
    },
  };
}

export function withAttempt(f: NodeFence, a: Attempt): NodeFence {
  const others = f.status.attempts.filter((x) => x.number !== a.number);
  return { ...f, status: { ...f.status, attempts: [...others, a].sort((x, y) => x.number - y.number) } };
}

export const attemptOf = (f: NodeFence, n: number) => f.status.attempts.find((a) => a.number === n);

/** Agent output kept in the object: enough to read the error, never enough to bloat etcd. */
export function trimOutput(s: string, max = 2_000): string {
  const t = s.trim();
  return t.length <= max ? t : `${t.slice(0, max / 2)}\n…\n${t.slice(-max / 2)}`;
}

/** A step recorded while the phase stays (an agent refused: the fence holds in Fencing). */
export function withStep(f: NodeFence, message: string, now: number): NodeFence {
  const step = { phase: f.status.phase, at: isoNow(now), message };
  return { ...f, status: { ...f.status, steps: [...f.status.steps, step] } };
}

/**
 * A release round that let go of more (a second round of force deletes) while the phase stays
 * Releasing: recorded as its own step, so every pod and attachment released is named once.
 */
export function withReleaseStep(f: NodeFence, message: string, now: number, released: Released): NodeFence {
  const step = { phase: f.status.phase, at: isoNow(now), message, released };
  return { ...f, status: { ...f.status, steps: [...f.status.steps, step] } };
}
