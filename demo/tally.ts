// Pure bookkeeping of the storm demo: what the runaway client's deletions got back, the
// lowest availability the monitor saw per protected workload, and the human summary.
// No I/O here, so the rules are unit-tested (tally.test.ts).

export interface Tally {
  requests: number;
  /** 200: the webhook admitted the deletion */
  admitted: number;
  /**
   * the available pods (by uid: name) the webhook let go. Several workers often delete the
   * same pod at once; the later ones find it terminating and are admitted too, so this
   * counts pods, not admissions. Other admissions are of replacements not yet Ready.
   */
  takenDown: Record<string, string>;
  /** webhook refusals by HTTP code: 409 full admission buffer, 429 too few available */
  refused: Record<string, number>;
  /** 404: another of the client's workers had already deleted the pod */
  gone: number;
  /** anything else (HTTP code or "network"): unexpected, so the demo fails on it */
  errors: Record<string, number>;
}

export const emptyTally = (): Tally => ({
  requests: 0,
  admitted: 0,
  takenDown: {},
  refused: {},
  gone: 0,
  errors: {},
});

const REFUSALS = new Set([409, 429]);

/** The pod a deletion was sent for, as the client listed it. */
export interface Deleted {
  uid: string;
  name: string;
  /** available (Ready, not terminating) when listed */
  available: boolean;
}

/** Count one DELETE's answer (status 0: no HTTP answer at all). */
export function countDelete(t: Tally, status: number, pod: Deleted): void {
  t.requests++;
  if (status === 200 || status === 202) {
    t.admitted++;
    if (pod.available) t.takenDown[pod.uid] = pod.name;
  } else if (REFUSALS.has(status)) bump(t.refused, String(status));
  else if (status === 404) t.gone++;
  else bump(t.errors, status === 0 ? 'network' : String(status));
}

const bump = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);

export const refusedTotal = (t: Tally) => Object.values(t.refused).reduce((a, b) => a + b, 0);

/** One poll of a protected workload: pods available per the API, and its protector's status. */
export interface Sample {
  at: number;
  available: number;
  aggregated: number;
  estimated: number;
}

export interface Lows {
  samples: number;
  minAvailable: number;
  minAggregated: number;
  minEstimated: number;
  /** polls where the API's available count or the protector's aggregated count was under the floor */
  belowFloor: Sample[];
}

export const emptyLows = (): Lows => ({
  samples: 0,
  minAvailable: Number.POSITIVE_INFINITY,
  minAggregated: Number.POSITIVE_INFINITY,
  minEstimated: Number.POSITIVE_INFINITY,
  belowFloor: [],
});

export function track(l: Lows, s: Sample, floor: number): void {
  l.samples++;
  l.minAvailable = Math.min(l.minAvailable, s.available);
  l.minAggregated = Math.min(l.minAggregated, s.aggregated);
  l.minEstimated = Math.min(l.minEstimated, s.estimated);
  if (s.available < floor || s.aggregated < floor) l.belowFloor.push(s);
}

export interface WorkloadReport {
  protector: string;
  minAvailable: number;
  replicas: number;
  tally: Tally;
  lows: Lows;
}

export interface StormReport {
  seconds: number;
  workers: number;
  workloads: WorkloadReport[];
  violations: { invariant: string; subject: string; message: string }[];
  artifacts: string;
}

const codes = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, v]) => `${v} × ${k}`)
    .join(', ') || 'none';

const rate = (r: StormReport) =>
  (r.workloads.reduce((n, w) => n + w.tally.requests, 0) / Math.max(r.seconds, 0.001)).toFixed(0);

/** The lines printed at the end of the demo. */
export function formatReport(r: StormReport): string {
  const lines = [
    `storm: ${r.workers} runaway workers deleting every pod for ${r.seconds.toFixed(1)} s (${rate(r)} deletions/s)`,
    ...r.workloads.flatMap((w) => [
      `  ${w.protector} (replicas ${w.replicas}, floor ${w.minAvailable}): ${w.tally.requests} deletions sent`,
      `    admitted ${w.tally.admitted} (available pods taken down: ${Object.keys(w.tally.takenDown).length}), refused ${refusedTotal(w.tally)} (${codes(w.tally.refused)}), already gone ${w.tally.gone}, errors ${codes(w.tally.errors)}`,
      `    lowest seen in ${w.lows.samples} polls: available pods ${w.lows.minAvailable}, aggregated ${w.lows.minAggregated}, estimated ${w.lows.minEstimated}${w.lows.belowFloor.length ? ` — BELOW THE FLOOR ${w.lows.belowFloor.length} times` : ''}`,
    ]),
    `  checker violations: ${r.violations.length}${r.violations.map((v) => `\n    ${v.invariant} ${v.subject}: ${v.message}`).join('')}`,
    `  screenshots and summary: ${r.artifacts}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * How many rows of a newest-first list of clock times ("HH:MM:SS") are newer than the row
 * above them: 0 when the console's decisions table is in order.
 */
export const outOfOrder = (times: readonly string[]) =>
  times.filter((t, i) => i > 0 && t.trim() > times[i - 1].trim()).length;
