// What the console shows of fencing: one row per NodeFence with its progress through the phases,
// and a per-node summary for the map's tiles. Pure, shared by the server (tRPC) and the UI.
import type { AgentSpec, FencePolicySpec, NodeFence, Phase } from './types.js';

/** The happy path, in order; AwaitingApproval only for Manual policies. */
export const PROGRESS: Phase[] = [
  'Detected',
  'AwaitingApproval',
  'Fencing',
  'Fenced',
  'Releasing',
  'Released',
  'Recovered',
];

export type Tone = 'bad' | 'warn' | 'info' | 'ok' | 'muted';

/** How an incident commander should read a phase at a glance. */
export const PHASE_TONE: Record<Phase, Tone> = {
  Detected: 'warn',
  AwaitingApproval: 'warn',
  Fencing: 'bad',
  Fenced: 'info',
  Releasing: 'info',
  // not resolved: the node is off (or cut from its storage) and out of service until a person acts
  Released: 'warn',
  Recovered: 'ok',
  Failed: 'bad',
  Cancelled: 'muted',
};

export interface ProgressStep {
  phase: Phase;
  state: 'done' | 'current' | 'todo' | 'failed';
  at?: string;
}

/** The progress bar: every phase of the path with whether it is done, current or ahead. */
export function progressOf(f: NodeFence, manual: boolean): ProgressStep[] {
  const path = PROGRESS.filter(
    (p) => p !== 'AwaitingApproval' || manual || f.status.steps.some((s) => s.phase === p),
  );
  // the first time each phase was reached (a release round may add later steps of the same phase)
  const reached = new Map<Phase, string>();
  for (const s of f.status.steps) if (!reached.has(s.phase)) reached.set(s.phase, s.at);
  const phase = f.status.phase;
  const ended = phase === 'Failed' || phase === 'Cancelled';
  return path.map((p) => {
    if (p === phase) return { phase: p, state: 'current', at: reached.get(p) };
    if (reached.has(p)) return { phase: p, state: 'done', at: reached.get(p) };
    return { phase: p, state: ended ? 'failed' : 'todo' };
  });
}

export function agentLabel(spec: FencePolicySpec): string {
  const a = spec.agent;
  if (a.type === 'exec') return `${a.agent} (${a.action})`;
  return a.type === 'power' ? `built-in power (${a.action})` : 'storage fence';
}

/** Is the node safely fenced now (its pods and volumes may be released)? */
export const isFenced = (phase: Phase | undefined) =>
  phase === 'Fenced' || phase === 'Releasing' || phase === 'Released';

export interface NodeFenceSummary {
  phase: Phase;
  tone: Tone;
  message: string;
}

/** What a Released fence asks of a person: it is not resolved, the node waits for repair. */
export function releasedText(node: string, agent?: AgentSpec['type']): string {
  const state =
    agent === 'storage' ? 'is cut from its storage and out of service' : 'is powered off and out of service';
  const act = agent === 'storage' ? 'reboot or repair it' : 'power on or repair it';
  return `Released — node ${node} ${state}: ${act}, then remove the out-of-service taint`;
}

/** The badge's words for a phase (Released says a person is needed, never "resolved"). */
export function phaseLabel(phase: Phase): string {
  if (phase === 'AwaitingApproval') return 'Awaiting approval';
  if (phase === 'Released') return 'Released — needs repair';
  return phase;
}

/** The warning a fence (or an upcoming one) shows before its agent may run. */
export type Warning =
  | { kind: 'countdown'; seconds: number }
  | { kind: 'paused'; policy: string }
  | { kind: 'due' };

/**
 * The warning window as the console shows it: a countdown to fenceAt, "paused" while the policy
 * is, or nothing once the agent may run (or for a fence past Detected). Whole seconds, rounded up,
 * so "in 0 s" is never shown while the fence still waits.
 */
export function warningOf(
  w: { fenceAt?: number; paused: boolean; policy: string; phase?: Phase },
  now: number,
): Warning | undefined {
  if (w.phase && w.phase !== 'Detected') return undefined;
  if (w.paused) return { kind: 'paused', policy: w.policy };
  if (w.fenceAt === undefined) return undefined;
  const left = w.fenceAt - now;
  return left > 0 ? { kind: 'countdown', seconds: Math.ceil(left / 1000) } : { kind: 'due' };
}

export function warningText(w: Warning): string {
  if (w.kind === 'paused') return `fence paused by policy ${w.policy}`;
  if (w.kind === 'due') return 'fencing now unless cancelled';
  return `fenced automatically in ${w.seconds} s unless cancelled`;
}
