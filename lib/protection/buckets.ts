// Admission history: the webhook's record of deletions it admitted that the aggregator
// has not seen yet. A single-pod bucket names its pod; a compacted bucket stands for
// `count` admissions between start and end. Compaction merges the oldest buckets and
// keeps the total exact — Podseidon's compaction loses counts and so becomes too
// permissive, the one thing a deletion guard must never be.
import type { WireBucket } from './types.js';

export interface Bucket {
  /** ms since epoch */
  start: number;
  /** set on compacted buckets: the start of the newest admission merged in */
  end?: number;
  count: number;
  podUid?: string;
  podName?: string;
}

/** The admissions a history stands for (the "lag": admitted, not yet aggregated). */
export const lagOf = (buckets: readonly Bucket[]) => buckets.reduce((n, b) => n + b.count, 0);

/** The largest count the CRD's schema admits (int32). */
export const INT32_MAX = 2 ** 31 - 1;

const endOf = (b: Bucket) => b.end ?? b.start;

/**
 * Merge the oldest buckets so at most `threshold` remain (the merged one included).
 * Compacted buckets and single ones merge alike; the sum of counts never changes.
 */
export function compact(buckets: readonly Bucket[], threshold: number): Bucket[] {
  const keep = Math.max(1, threshold);
  if (buckets.length <= keep) return [...buckets];
  const sorted = [...buckets].sort((a, b) => a.start - b.start || endOf(a) - endOf(b));
  const merged = sorted.slice(0, sorted.length - keep + 1);
  const head: Bucket = {
    start: merged[0].start,
    end: merged.reduce((t, b) => Math.max(t, endOf(b)), merged[0].start),
    // a counter is an int32 on the wire; past it every deletion waits anyway (lag >= any count)
    count: Math.min(INT32_MAX, lagOf(merged)),
  };
  return [head, ...sorted.slice(merged.length)];
}

/**
 * Forget the buckets a snapshot has caught up with: every admission in them happened
 * before the snapshot time, so the aggregated counts already reflect it. A compacted
 * bucket that straddles the snapshot stays whole: which of its admissions are seen
 * is unknown, and keeping them is the safe side.
 */
export function dropSeen(
  buckets: readonly Bucket[],
  snapshotTime: number,
  unseen?: { stillRunning: (podUid: string) => boolean; graceMs: number },
): Bucket[] {
  return buckets.filter((b) => {
    if (endOf(b) > snapshotTime) return true;
    // Beyond Podseidon: in clock mode an unrelated event can move the snapshot past an
    // admission whose deletion the stream has not delivered yet. A single-pod bucket
    // whose pod the aggregator still sees alive stays, for a grace period after which
    // the deletion is taken to have failed elsewhere (another webhook refused it).
    return !!(unseen && b.podUid && unseen.stillRunning(b.podUid) && snapshotTime < b.start + unseen.graceMs);
  });
}

// ---- wire format (metav1.MicroTime: RFC 3339 with microseconds) -------------------------

export function microTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.000Z
  return `${iso.slice(0, 23)}000Z`;
}

export function parseMicroTime(s: string | null | undefined): number | undefined {
  if (!s) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

export function fromWire(w: WireBucket): Bucket {
  const start = parseMicroTime(w.startTime) ?? 0;
  const end = parseMicroTime(w.endTime);
  // a compacted bucket without a counter is malformed: count it as one, never as zero
  const count = w.podUID || w.podName ? 1 : Math.max(1, w.counter ?? 1);
  return {
    start,
    ...(end !== undefined ? { end } : {}),
    count,
    ...(w.podUID ? { podUid: w.podUID } : {}),
    ...(w.podName ? { podName: w.podName } : {}),
  };
}

export function toWire(b: Bucket): WireBucket {
  if (b.podUid !== undefined || (b.count === 1 && b.end === undefined))
    return {
      startTime: microTime(b.start),
      ...(b.podUid ? { podUID: b.podUid } : {}),
      ...(b.podName ? { podName: b.podName } : {}),
    };
  return { startTime: microTime(b.start), endTime: microTime(endOf(b)), counter: b.count };
}
