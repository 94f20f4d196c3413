// One RetryBatch round for one protector, as pure data: judge the queued requests on the
// protector as last read, and say what its status becomes. Dry runs are judged on the
// same state but leave no bucket; a batch with nothing to write is a no-op.
//
// Beyond Podseidon: the aggregated counts are only as fresh as the aggregator's last write,
// and while it stalls (a leader change, a slow API server) pods can stop being available
// without the status saying so. Where this replica indexes a cell's pods itself (`live`),
// each count of that cell is judged as at most the index's count plus the cell's lag (the
// deletions admitted that the aggregation has not seen: the index may already have seen
// them go). With a fresh aggregation that ceiling is never below the aggregated count, so
// nothing changes; with a stale one, a floor the pods no longer stand above is kept.
import { lagOf } from './buckets.js';
import type { Counts } from './counts.js';
import { admitBatch, admits, type BatchItem, quotaState, type Verdict } from './quota.js';
import {
  type Cell,
  cellsOf,
  DEFAULT_HISTORY_CONFIG,
  type HistoryConfig,
  historyConfig,
  recordAdmissions,
  releaseAdmission,
  summarize,
  totalLag,
} from './status.js';
import type { PodProtector } from './types.js';

export interface AdmitRequest extends BatchItem {
  kind: 'admit';
  cellId: string;
  podUid: string;
  podName: string;
  /** ms since epoch: when the webhook received it (the bucket's start time) */
  at: number;
  dryRun: boolean;
}

/** Undo an admission (another protector of the same pod denied it). */
export interface ReleaseRequest {
  kind: 'release';
  cellId: string;
  podUid: string;
  at: number;
}

export type BatchRequest = AdmitRequest | ReleaseRequest;

export interface BatchRound {
  /** one per request; releases always succeed; a pod that already has a bucket is AlreadyAdmitted */
  verdicts: (Verdict | 'Released' | 'AlreadyAdmitted')[];
  /** the new cells to write; undefined when nothing changes */
  cells?: Cell[];
  /** the state judged against, for decisions to show */
  aggregated: number;
  estimated: number;
  /** the available count judged on, when this replica's pod index lowered the aggregated one */
  indexed?: number;
}

/** Per cell: the counts this replica's own pod index gives the protector now. */
export type LiveCounts = ReadonlyMap<string, Omit<Counts, 'total'>>;

const FIELDS = ['available', 'ready', 'running', 'scheduled'] as const;

/** The cells with each indexed count lowered to the index's count plus the cell's lag. */
function withinIndex(cells: readonly Cell[], live: LiveCounts | undefined): Cell[] {
  if (!live?.size) return [...cells];
  return cells.map((c) => {
    const seen = live.get(c.id);
    if (!seen) return c;
    const lag = lagOf(c.buckets);
    const counts = { ...c.counts };
    for (const f of FIELDS) counts[f] = Math.min(counts[f], seen[f] + lag);
    return { ...c, counts };
  });
}

/**
 * The summary as aggregated, the one judged on (bounded by `live`), and the available count
 * judged on when the bound lowered it (for decisions to show).
 */
export function judgedSummary(cells: readonly Cell[], live: LiveCounts | undefined, now: number) {
  const summary = summarize(cells, now);
  const judgedOn = live?.size ? summarize(withinIndex(cells, live), now) : summary;
  const lowered = judgedOn.aggregatedAvailableReplicas < summary.aggregatedAvailableReplicas;
  return { summary, judgedOn, indexed: lowered ? judgedOn.aggregatedAvailableReplicas : undefined };
}

export function evaluateBatch(
  p: PodProtector,
  requests: readonly BatchRequest[],
  now: number,
  defaults: HistoryConfig = DEFAULT_HISTORY_CONFIG,
  live?: LiveCounts,
): BatchRound {
  const cfg = historyConfig(p, defaults);
  let cells = cellsOf(p);
  const { summary, judgedOn, indexed } = judgedSummary(cells, live, now);
  const lag = totalLag(cells);
  // a repeated deletion of a pod already admitted (a client retry, an eviction then a
  // delete) spends no quota twice: its bucket is refreshed instead
  const seen = new Set(
    cells.flatMap((c) => c.buckets.flatMap((b) => (b.podUid ? [`${c.id}/${b.podUid}`] : []))),
  );
  const again = new Set(
    requests.filter((r) => r.kind === 'admit' && seen.has(`${r.cellId}/${r.podUid}`)) as AdmitRequest[],
  );
  const admitsOnly = requests.filter(
    (r): r is AdmitRequest => r.kind === 'admit' && !again.has(r as AdmitRequest),
  );
  const state = quotaState(
    {
      available: judgedOn.aggregatedAvailableReplicas,
      ready: judgedOn.aggregatedReady,
      running: judgedOn.aggregatedRunning,
      scheduled: judgedOn.aggregatedScheduled,
    },
    p.spec.minAvailable,
    lag,
    cfg.maxConcurrentLag,
  );
  const judged = admitBatch(state, admitsOnly);
  const verdictOf = new Map(admitsOnly.map((r, i) => [r, judged[i]]));
  let changed = false;
  for (const r of requests) {
    if (r.kind === 'release') {
      cells = releaseAdmission(cells, r.cellId, r.podUid, r.at);
      changed = true;
    }
  }
  for (const r of again) {
    if (r.dryRun) continue;
    cells = refreshBucket(cells, r.cellId, r.podUid, r.at);
    changed = true;
  }
  const byCell = new Map<string, AdmitRequest[]>();
  for (const r of admitsOnly)
    if (verdictOf.get(r) === 'Ok' && !r.dryRun) byCell.set(r.cellId, [...(byCell.get(r.cellId) ?? []), r]);
  for (const [cellId, rs] of byCell) {
    cells = recordAdmissions(cells, cellId, rs, cfg.compactThreshold);
    changed = true;
  }
  return {
    verdicts: requests.map((r) =>
      r.kind === 'release' ? 'Released' : again.has(r) ? 'AlreadyAdmitted' : verdictOf.get(r)!,
    ),
    ...(changed ? { cells } : {}),
    aggregated: summary.aggregatedAvailableReplicas,
    estimated: summary.estimatedAvailableReplicas,
    ...(indexed !== undefined ? { indexed } : {}),
  };
}

function refreshBucket(cells: Cell[], cellId: string, podUid: string, at: number): Cell[] {
  return cells.map((c) =>
    c.id !== cellId
      ? c
      : {
          ...c,
          buckets: c.buckets.map((b) => (b.podUid === podUid ? { ...b, start: Math.max(b.start, at) } : b)),
        },
  );
}

/** Does this verdict let the deletion through? */
export const allowed = (v: BatchRound['verdicts'][number]) =>
  v === 'AlreadyAdmitted' || (v !== 'Released' && admits(v));
