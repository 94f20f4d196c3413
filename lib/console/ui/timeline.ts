// Layout of the pod termination timeline (seed 003): where each event sits on a horizontal
// axis. Pure: times in ms since epoch in, fractions in [0, 1] out.
import type { TerminationStepName } from '../../kube/termination';
import type { PodView } from '../protocol';

export type StepName = TerminationStepName;

export interface TerminationStep {
  step: StepName | string;
  at: number;
  detail?: string;
}

export type MarkKind = 'request' | 'deadline' | 'step' | 'now';

export interface TimelineMark {
  kind: MarkKind;
  label: string;
  at: number;
  /** position on the axis, 0..1 */
  x: number;
  /** row for labels, so near marks do not overlap (0, 1, 2) */
  lane: number;
  tone: 'neutral' | 'info' | 'warn' | 'crit' | 'ok';
  detail?: string;
}

export interface TimelineLayout {
  start: number;
  end: number;
  /** grace window [requested, deadline] as fractions */
  grace?: { x0: number; x1: number };
  /** preStop window as fractions, when known */
  preStop?: { x0: number; x1: number; cutShort: boolean };
  marks: TimelineMark[];
  /** true once the pod is gone (removed step seen) */
  finished: boolean;
}

export const STEP_LABEL: Record<string, string> = {
  observed: 'kubelet observed',
  'preStop-started': 'preStop start',
  'preStop-finished': 'preStop done',
  'preStop-cut-short': 'preStop cut short',
  SIGTERM: 'SIGTERM',
  exited: 'exited',
  SIGKILL: 'SIGKILL',
  'status-reported': 'status reported',
  removed: 'removed',
  'kubelet-restarted': 'kubelet restarted',
  // from the API (any cluster): see apiSteps.ts
  'left-endpoints': 'left endpoints',
  'event-killing': 'Killing (event)',
  'event-prestop-failed': 'preStop failed (event)',
  'event-grace-exceeded': 'grace exceeded (event)',
  'gone-from-api': 'gone from the API',
};

const STEP_TONE: Record<string, TimelineMark['tone']> = {
  observed: 'info',
  'preStop-started': 'info',
  'preStop-finished': 'info',
  'preStop-cut-short': 'warn',
  SIGTERM: 'warn',
  exited: 'ok',
  SIGKILL: 'crit',
  'status-reported': 'info',
  removed: 'neutral',
  'kubelet-restarted': 'crit',
  'left-endpoints': 'info',
  'event-killing': 'warn',
  'event-prestop-failed': 'crit',
  'event-grace-exceeded': 'crit',
  'gone-from-api': 'neutral',
};

/** Minimum horizontal distance (fraction of the axis) between labels on one lane. */
export const LANE_GAP = 0.09;

export function layoutTimeline(
  pod: Pick<PodView, 'deletionTimestamp' | 'deletionGracePeriodSeconds'>,
  steps: readonly TerminationStep[] | undefined,
  now: number,
): TimelineLayout | null {
  const sorted = [...(steps ?? [])].sort((a, b) => a.at - b.at);
  const deadline = pod.deletionTimestamp;
  const grace = pod.deletionGracePeriodSeconds;
  const requested = deadline !== undefined && grace !== undefined ? deadline - grace * 1000 : undefined;
  if (deadline === undefined && sorted.length === 0) return null;
  const finished = sorted.some((s) => s.step === 'removed' || s.step === 'gone-from-api');
  const times = sorted.map((s) => s.at);
  if (requested !== undefined) times.push(requested);
  if (deadline !== undefined) times.push(deadline);
  if (!finished) times.push(now);
  let start = Math.min(...times);
  let end = Math.max(...times);
  if (end - start < 1000) end = start + 1000;
  // a little air on both sides
  const pad = (end - start) * 0.04;
  start -= pad;
  end += pad;
  const x = (t: number) => Math.min(1, Math.max(0, (t - start) / (end - start)));

  const raw: Omit<TimelineMark, 'lane'>[] = [];
  if (requested !== undefined)
    raw.push({ kind: 'request', label: 'delete requested', at: requested, x: x(requested), tone: 'neutral' });
  for (const s of sorted)
    raw.push({
      kind: 'step',
      label: STEP_LABEL[s.step] ?? s.step,
      at: s.at,
      x: x(s.at),
      tone: STEP_TONE[s.step] ?? 'neutral',
      detail: s.detail,
    });
  if (deadline !== undefined)
    raw.push({ kind: 'deadline', label: 'grace ends', at: deadline, x: x(deadline), tone: 'warn' });
  if (!finished) raw.push({ kind: 'now', label: 'now', at: now, x: x(now), tone: 'info' });
  raw.sort((a, b) => a.x - b.x || a.at - b.at);
  const marks = assignLanes(raw);

  const preStart = sorted.find((s) => s.step === 'preStop-started');
  const preEnd = sorted.find(
    (s) => s.at >= (preStart?.at ?? 0) && (s.step === 'preStop-finished' || s.step === 'preStop-cut-short'),
  );
  return {
    start,
    end,
    grace:
      requested !== undefined && deadline !== undefined ? { x0: x(requested), x1: x(deadline) } : undefined,
    preStop: preStart
      ? {
          x0: x(preStart.at),
          x1: x(preEnd?.at ?? (finished ? preStart.at : now)),
          cutShort: preEnd?.step === 'preStop-cut-short',
        }
      : undefined,
    marks,
    finished,
  };
}

/** Greedy: each mark goes to the lowest lane whose last label is far enough to the left
 * (up to 8 lanes: a fast termination puts most steps within a few pixels of each other). */
export function assignLanes<M extends { x: number }>(
  marks: readonly M[],
  gap = LANE_GAP,
  lanes = 8,
): (M & { lane: number })[] {
  const lastX: number[] = Array.from({ length: lanes }, () => Number.NEGATIVE_INFINITY);
  return marks.map((m) => {
    let lane = lastX.findIndex((lx) => m.x - lx >= gap);
    if (lane < 0) lane = lastX.indexOf(Math.min(...lastX));
    lastX[lane] = m.x;
    return { ...m, lane };
  });
}
