// What the console shows of fencing: one row per NodeFence with its progress through the phases,
// and a per-node summary for the map's tiles. Pure, shared by the server (tRPC) and the UI.
import type { FencePolicySpec, NodeFence, Phase } from './types.js';

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
  Released: 'ok',
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
  const reached = new Map(f.status.steps.map((s) => [s.phase, s.at]));
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
