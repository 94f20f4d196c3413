import { describe, expect, it } from 'vitest';
import {
  type Bucket,
  compact,
  dropSeen,
  fromWire,
  lagOf,
  microTime,
  parseMicroTime,
  toWire,
} from './buckets.js';

const single = (start: number, uid = `u${start}`): Bucket => ({ start, count: 1, podUid: uid });

describe('compact', () => {
  it.each([
    ['under the threshold: unchanged', 3, 5, 3],
    ['at the threshold: unchanged', 5, 5, 5],
    ['over: merged down to the threshold', 12, 5, 5],
    ['threshold 1: one bucket', 7, 1, 1],
  ])('%s', (_n, count, threshold, length) => {
    const buckets = Array.from({ length: count }, (_, i) => single(1000 + i));
    const out = compact(buckets, threshold);
    expect(out).toHaveLength(length);
    // the total count is exact: a lost count would admit one deletion too many
    expect(lagOf(out)).toBe(count);
  });

  it('merges the oldest, keeps the newest as single-pod buckets', () => {
    const out = compact([single(5), single(1), single(4), single(2), single(3)], 3);
    expect(out[0]).toEqual({ start: 1, end: 3, count: 3 });
    expect(out.slice(1).map((b) => b.podUid)).toEqual(['u4', 'u5']);
  });

  it('a merged counter stays an int32 (saturated: at that lag every deletion waits anyway)', () => {
    const big = (start: number): Bucket => ({ start, end: start, count: 2 ** 31 - 1 });
    const out = compact([big(1), big(2), single(3)], 2);
    expect(out[0]).toEqual({ start: 1, end: 2, count: 2 ** 31 - 1 });
  });

  it('repeated compaction of compacted buckets keeps every count', () => {
    let buckets: Bucket[] = [];
    for (let i = 0; i < 500; i++) buckets = compact([...buckets, single(i)], 10);
    expect(buckets).toHaveLength(10);
    expect(lagOf(buckets)).toBe(500);
  });
});

describe('dropSeen', () => {
  const compacted: Bucket = { start: 10, end: 20, count: 4 };
  it.each([
    ['before everything: all kept', 5, 4],
    ['after the first single: it goes', 11, 3],
    ['inside a compacted range: it stays whole', 15, 3],
    ['past everything: empty', 100, 0],
  ])('%s', (_n, t, remaining) => {
    expect(dropSeen([single(10), compacted, single(30), single(40)], t).length).toBe(remaining);
  });
});

describe('dropSeen with pods still running', () => {
  const unseen = (alive: string[]) => ({ stillRunning: (u: string) => alive.includes(u), graceMs: 1000 });
  it.each([
    ['pod gone: dropped once the snapshot passes', [], 150, 0],
    ['pod still running, within grace: kept', ['u100'], 150, 1],
    ['pod still running, grace over: dropped (the deletion failed elsewhere)', ['u100'], 1200, 0],
  ])('%s', (_n, alive, t, remaining) => {
    expect(dropSeen([single(100)], t, unseen(alive as string[])).length).toBe(remaining);
  });
});

describe('wire format', () => {
  it('writes MicroTime with six fractional digits and reads it back', () => {
    const t = Date.parse('2026-11-23T10:00:00.123Z');
    expect(microTime(t)).toBe('2026-11-23T10:00:00.123000Z');
    expect(parseMicroTime(microTime(t))).toBe(t);
  });
  it.each<[string, Bucket]>([
    ['single', { start: 1_700_000_000_000, count: 1, podUid: 'u', podName: 'web-1' }],
    ['compacted', { start: 1_700_000_000_000, end: 1_700_000_001_000, count: 7 }],
  ])('round-trips a %s bucket', (_n, b) => {
    expect(fromWire(toWire(b))).toEqual(b);
  });
  it('a compacted bucket with no counter counts one, never zero', () => {
    expect(fromWire({ startTime: microTime(0), endTime: microTime(5) }).count).toBe(1);
  });
});
