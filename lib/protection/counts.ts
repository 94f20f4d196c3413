// Counting pods for a PodProtector, as the aggregator does: every pod that is not
// terminating (nor finished) counts in total; scheduled, running, ready and available
// (ready for at least minReadySeconds) are counted separately because the health
// criterion of a deletion may name any of them.
import type { Criterion } from './types.js';

/** The facts about one pod that protection needs; built from a V1Pod by the adapters. */
export interface PodFacts {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** deletionTimestamp is set */
  terminating: boolean;
  /** phase Succeeded or Failed: the pod will never run again */
  finished?: boolean;
  scheduled: boolean;
  running: boolean;
  /** ms since epoch when Ready last became True; undefined while not ready */
  readySince?: number;
}

export interface Counts {
  total: number;
  scheduled: number;
  running: number;
  ready: number;
  available: number;
}

export const ZERO: Counts = Object.freeze({ total: 0, scheduled: 0, running: 0, ready: 0, available: 0 });

export const counted = (p: PodFacts) => !p.terminating && !p.finished;

export function isAvailable(p: PodFacts, minReadySeconds: number, now: number): boolean {
  return p.readySince !== undefined && p.readySince + minReadySeconds * 1000 <= now;
}

/** What one pod adds to the counts now (all zero for a terminating or finished pod). */
export function contribution(p: PodFacts, minReadySeconds: number, now: number): Counts {
  if (!counted(p)) return ZERO;
  return {
    total: 1,
    scheduled: p.scheduled ? 1 : 0,
    running: p.running ? 1 : 0,
    ready: p.readySince !== undefined ? 1 : 0,
    available: isAvailable(p, minReadySeconds, now) ? 1 : 0,
  };
}

export function addCounts(a: Counts, b: Counts): Counts {
  return {
    total: a.total + b.total,
    scheduled: a.scheduled + b.scheduled,
    running: a.running + b.running,
    ready: a.ready + b.ready,
    available: a.available + b.available,
  };
}

export function aggregate(pods: Iterable<PodFacts>, minReadySeconds: number, now: number): Counts {
  let c: Counts = ZERO;
  for (const p of pods) c = addCounts(c, contribution(p, minReadySeconds, now));
  return c;
}

/** The count a criterion reads. */
export function countFor(c: Counts, criterion: Criterion): number {
  switch (criterion) {
    case 'Available':
      return c.available;
    case 'Ready':
      return c.ready;
    case 'Running':
      return c.running;
    case 'Scheduled':
      return c.scheduled;
  }
}

/**
 * When the count will next change by itself: the earliest moment a ready pod crosses
 * minReadySeconds, so the aggregator can re-run then without a pod event.
 */
export function nextAvailableAt(pods: Iterable<PodFacts>, minReadySeconds: number, now: number) {
  let next: number | undefined;
  for (const p of pods) {
    if (!counted(p) || p.readySince === undefined) continue;
    const at = p.readySince + minReadySeconds * 1000;
    if (at > now && (next === undefined || at < next)) next = at;
  }
  return next;
}
