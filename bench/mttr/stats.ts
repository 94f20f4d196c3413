// Summaries of a case's repetitions: MTTR percentiles over the recovered ones, the p50 moment of
// each phase (ms from the partition), Palisade's own segments, and the checker's violations.
import { percentile } from '../http.js';
import type { Profile } from './profiles.js';
import type { Sample } from './steps.js';

export type CaseKey =
  | 'palisade'
  | 'palisadeNow'
  | 'palisadeDelete'
  | 'palisadeByHand'
  | 'sts'
  | 'deployment'
  | 'manual';
export const isPalisade = (k: CaseKey) => k.startsWith('palisade');

export const CASE_LABELS: Record<CaseKey, string> = {
  palisade: 'Palisade (Automatic policy), StatefulSet',
  palisadeNow: 'variant: Palisade acting on Ready=Unknown for 0s, StatefulSet',
  palisadeDelete: 'variant: Palisade releasing by ResourceDeletion, StatefulSet',
  palisadeByHand: 'variant: the budget holds the fence, a person uses Fence now, StatefulSet',
  sts: 'plain, StatefulSet',
  deployment: 'plain, Deployment',
  manual: 'plain, Deployment + a person force-deletes the stuck pod',
};

export interface CaseResult {
  profile: Profile;
  key: CaseKey;
  samples: Sample[];
}

export interface Summary {
  reps: number;
  recovered: number;
  /** over the recovered repetitions, ms */
  p50?: number;
  p90?: number;
  max?: number;
  windowMs: number;
  /** phase -> p50 ms from the partition, over the repetitions that reached it */
  phases: Record<string, number>;
  violations: number;
  repsWithViolations: number;
}

/** Timeline order; a phase shows only where some repetition reached it. */
export const PHASE_ORDER = [
  'unknown',
  'held',
  'requested',
  'detected',
  'fenced',
  'tainted',
  'evicted',
  'forceDeleted',
  'podGone',
  'replaced',
  'multiAttach',
  'detached',
  'running',
  'released',
];

export function summarize(c: CaseResult): Summary {
  const s = c.samples;
  const mttr = s.map((x) => x.mttrMs).filter((v): v is number => v !== undefined);
  const phases: Record<string, number> = {};
  for (const ph of PHASE_ORDER) {
    const v = s.map((x) => x.phases[ph]).filter((x): x is number => x !== undefined);
    if (v.length) phases[ph] = percentile(v, 50);
  }
  return {
    reps: s.length,
    recovered: mttr.length,
    p50: mttr.length ? percentile(mttr, 50) : undefined,
    p90: mttr.length ? percentile(mttr, 90) : undefined,
    max: mttr.length ? Math.max(...mttr) : undefined,
    windowMs: Math.min(...s.map((x) => x.windowMs)),
    phases,
    violations: s.reduce((n, x) => n + x.violations.length, 0),
    repsWithViolations: s.filter((x) => x.violations.length).length,
  };
}

/** Palisade's repetitions cut into segments: who spends the time between partition and recovery. */
export const SEGMENTS: { name: string; from: string; to: string; who: string }[] = [
  {
    name: 'detect',
    from: 'partition',
    to: 'detected',
    who: 'Kubernetes node-monitor grace, then the policy',
  },
  { name: 'fence', from: 'detected', to: 'fenced', who: 'Palisade: power agent + status query' },
  {
    name: 'release',
    from: 'fenced',
    to: 'podGone',
    who: 'Palisade taints; Kubernetes evicts, then its pod GC sweep force-deletes (variant: Palisade force-deletes)',
  },
  {
    name: 'restart',
    from: 'podGone',
    to: 'running',
    who: 'Kubernetes: StatefulSet, detach, attach, kubelet',
  },
];

export function segments(c: CaseResult) {
  return SEGMENTS.map((seg) => {
    const v = c.samples
      .map((x) => x.phases[seg.to] - (seg.from === 'partition' ? 0 : x.phases[seg.from]))
      .filter((d) => Number.isFinite(d));
    return { ...seg, p50: percentile(v, 50), max: v.length ? Math.max(...v) : Number.NaN };
  });
}
