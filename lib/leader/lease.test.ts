import { describe, expect, it } from 'vitest';
import { judgeLease, type LeaseRecord, observe } from './lease.js';

const rec = (holder: string, renewTime = 't1', transitions = 1): LeaseRecord => ({
  holder,
  durationSeconds: 15,
  transitions,
  renewTime,
});

describe('judgeLease', () => {
  const cases: [
    string,
    LeaseRecord | undefined,
    { record: LeaseRecord; at: number } | undefined,
    number,
    string,
  ][] = [
    ['no Lease yet: create it', undefined, undefined, 0, 'create'],
    ['held by me: renew', rec('me'), undefined, 0, 'renew'],
    ['released (empty holder): take it at once', rec(''), undefined, 0, 'acquire'],
    ['held by another, first seen now: follow for its whole duration', rec('b'), undefined, 1_000, 'follow'],
    [
      'held by another, unchanged for 14.9 s: follow',
      rec('b'),
      { record: rec('b'), at: 0 },
      14_900,
      'follow',
    ],
    [
      'held by another, unchanged for 15 s: expired, take it',
      rec('b'),
      { record: rec('b'), at: 0 },
      15_000,
      'acquire',
    ],
    [
      'renewed since it was first seen: the clock starts again',
      rec('b', 't2'),
      { record: rec('b', 't1'), at: 0 },
      15_000,
      'follow',
    ],
  ];
  it.each(cases)('%s', (_n, current, observed, now, kind) => {
    expect(judgeLease(current, observed, 'me', now).kind).toBe(kind);
  });

  it('says who leads and until when, on the local clock', () => {
    expect(judgeLease(rec('b'), { record: rec('b'), at: 5_000 }, 'me', 6_000)).toEqual({
      kind: 'follow',
      holder: 'b',
      expiresAt: 20_000,
    });
  });
});

describe('observe', () => {
  it('keeps the first sighting while the record is unchanged, restarts it on a renewal', () => {
    const first = observe(undefined, rec('b'), 100);
    expect(observe(first, rec('b'), 900)).toBe(first);
    expect(observe(first, rec('b', 't2'), 900)).toEqual({ record: rec('b', 't2'), at: 900 });
    expect(observe(first, undefined, 900)).toBeUndefined();
  });
});
