// A PodProtector's status as plain data: per cell, the aggregator's counts at its snapshot
// time and the webhook's admissions since; the summary both sides write for display and
// for the webhook's next decision. Pure functions from one status to the next.
import {
  type Bucket,
  compact,
  INT32_MAX,
  dropSeen,
  fromWire,
  lagOf,
  microTime,
  parseMicroTime,
  toWire,
} from './buckets.js';
import { addCounts, type Counts, ZERO } from './counts.js';
import type { CellStatus, PodProtector } from './types.js';

export interface Cell {
  id: string;
  counts: Counts;
  /** the aggregator's snapshot time (ms); undefined before its first aggregation */
  lastEventTime?: number;
  buckets: Bucket[];
}

export interface Summary {
  totalReplicas: number;
  aggregatedAvailableReplicas: number;
  estimatedAvailableReplicas: number;
  maxLatencyMillis: number;
  aggregatedReady: number;
  aggregatedScheduled: number;
  aggregatedRunning: number;
  /** Palisade's extension: admissions not yet aggregated (printed as the Lag column) */
  admissionLag: number;
}

/** Podseidon's per-object tuning with its defaults filled in. */
export interface HistoryConfig {
  maxConcurrentLag: number;
  compactThreshold: number;
  aggregationRateMillis: number;
}

export const DEFAULT_HISTORY_CONFIG: HistoryConfig = {
  maxConcurrentLag: 0,
  compactThreshold: 100,
  aggregationRateMillis: 500,
};

export function historyConfig(p: PodProtector, defaults = DEFAULT_HISTORY_CONFIG): HistoryConfig {
  const c = p.spec.admissionHistoryConfig ?? {};
  return {
    maxConcurrentLag: c.maxConcurrentLag ?? defaults.maxConcurrentLag,
    compactThreshold: c.compactThreshold ?? defaults.compactThreshold,
    aggregationRateMillis: c.aggregationRateMillis ?? defaults.aggregationRateMillis,
  };
}

export function cellsOf(p: PodProtector): Cell[] {
  return (p.status?.cells ?? []).map((c) => ({
    id: c.cellID,
    counts: {
      total: c.aggregation.totalReplicas,
      available: c.aggregation.availableReplicas,
      ready: c.aggregation.readyReplicas,
      scheduled: c.aggregation.scheduledReplicas,
      running: c.aggregation.runningReplicas,
    },
    lastEventTime: parseMicroTime(c.aggregation.lastEventTime),
    buckets: (c.admissionHistory?.buckets ?? []).map(fromWire),
  }));
}

export function cellToWire(c: Cell): CellStatus {
  return {
    cellID: c.id,
    aggregation: {
      totalReplicas: c.counts.total,
      availableReplicas: c.counts.available,
      readyReplicas: c.counts.ready,
      scheduledReplicas: c.counts.scheduled,
      runningReplicas: c.counts.running,
      ...(c.lastEventTime !== undefined ? { lastEventTime: microTime(c.lastEventTime) } : {}),
    },
    admissionHistory: c.buckets.length ? { buckets: c.buckets.map(toWire) } : {},
  };
}

export const totalLag = (cells: readonly Cell[]) => cells.reduce((n, c) => n + lagOf(c.buckets), 0);

/**
 * A sum saturated to the schema's int32: counts of several cells (each an int32 the API server
 * accepted) may add up past it, and a summary out of range is a status write refused forever.
 * Lower for the available counts and higher for the lag is the side that admits less.
 */
const int32 = (n: number) => Math.max(-INT32_MAX - 1, Math.min(INT32_MAX, n));

export function summarize(cells: readonly Cell[], now: number): Summary {
  const counts = cells.reduce<Counts>((a, c) => addCounts(a, c.counts), ZERO);
  const lag = totalLag(cells);
  // how stale the slowest cell that still owes us an aggregation is
  let oldest: number | undefined;
  for (const c of cells)
    if (c.buckets.length && (oldest === undefined || (c.lastEventTime ?? 0) < oldest))
      oldest = c.lastEventTime ?? 0;
  return {
    totalReplicas: int32(counts.total),
    aggregatedAvailableReplicas: int32(counts.available),
    estimatedAvailableReplicas: int32(counts.available - lag),
    maxLatencyMillis: oldest === undefined ? 0 : Math.max(0, now - oldest),
    aggregatedReady: int32(counts.ready),
    aggregatedScheduled: int32(counts.scheduled),
    aggregatedRunning: int32(counts.running),
    admissionLag: int32(lag),
  };
}

/** A summary read from the wire (the webhook decides on it); missing fields are zero. */
export function summaryOf(p: PodProtector, now: number): Summary {
  return summarize(cellsOf(p), now);
}

function upsert(cells: readonly Cell[], id: string): [Cell[], Cell] {
  const found = cells.find((c) => c.id === id);
  if (found) {
    const copy = { ...found, buckets: [...found.buckets] };
    return [cells.map((c) => (c.id === id ? copy : c)), copy];
  }
  const fresh: Cell = { id, counts: { ...ZERO }, buckets: [] };
  return [[...cells, fresh], fresh];
}

/** The webhook's write: admitted pods become single-pod buckets in their cell, then compaction. */
export function recordAdmissions(
  cells: readonly Cell[],
  cellId: string,
  admitted: readonly { podUid: string; podName?: string; at: number }[],
  compactThreshold: number,
): Cell[] {
  if (admitted.length === 0) return [...cells];
  const [next, cell] = upsert(cells, cellId);
  for (const a of admitted)
    cell.buckets.push({
      start: a.at,
      count: 1,
      podUid: a.podUid,
      ...(a.podName ? { podName: a.podName } : {}),
    });
  cell.buckets = compact(cell.buckets, compactThreshold);
  return next;
}

/**
 * Take back an admission that one protector made while another denied the same pod.
 * Its single-pod bucket goes; if it was compacted already, the compacted bucket that
 * covers its time gives up one count.
 */
export function releaseAdmission(cells: readonly Cell[], cellId: string, podUid: string, at: number): Cell[] {
  const [next, cell] = upsert(cells, cellId);
  const single = cell.buckets.findIndex((b) => b.podUid === podUid);
  if (single >= 0) cell.buckets.splice(single, 1);
  else {
    const i = cell.buckets.findIndex(
      (b) => b.podUid === undefined && b.start <= at && (b.end ?? b.start) >= at,
    );
    if (i >= 0) {
      const b = cell.buckets[i];
      if (b.count <= 1) cell.buckets.splice(i, 1);
      else cell.buckets[i] = { ...b, count: b.count - 1 };
    }
  }
  return next;
}

/** The aggregator's write: its counts at snapshot time, and the buckets the snapshot has seen dropped. */
export function recordAggregation(
  cells: readonly Cell[],
  cellId: string,
  counts: Counts,
  snapshotTime: number,
  unseen?: Parameters<typeof dropSeen>[2],
): Cell[] {
  const [next, cell] = upsert(cells, cellId);
  cell.counts = { ...counts };
  // the snapshot time only moves forward, whatever clock skew says
  cell.lastEventTime = Math.max(cell.lastEventTime ?? 0, snapshotTime);
  cell.buckets = dropSeen(cell.buckets, cell.lastEventTime, unseen);
  return next;
}

export const removeCells = (cells: readonly Cell[], ids: readonly string[]) =>
  cells.filter((c) => !ids.includes(c.id));

/** The status object to write: cells and their summary. */
export function statusOf(cells: readonly Cell[], now: number) {
  return { cells: cells.map(cellToWire), summary: summarize(cells, now) };
}
