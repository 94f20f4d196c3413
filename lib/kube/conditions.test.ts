import { describe, expect, it } from 'vitest';
import {
  podCondition,
  rfc3339,
  setPodCondition,
  setStatusCondition,
  toMillis,
  wireTime,
} from './conditions.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('times', () => {
  const cases: [string, Parameters<typeof toMillis>[0], number | undefined][] = [
    ['RFC 3339 string', '2026-01-01T00:00:00Z', now],
    ['micro-time string', '2026-01-01T00:00:00.250000Z', now + 250],
    ['Date', new Date(now), now],
    ['empty', '', undefined],
    ['null', null, undefined],
    ['garbage', 'yesterday', undefined],
  ];
  it.each(cases)('toMillis: %s', (_, t, want) => {
    expect(toMillis(t)).toBe(want);
  });

  it('writes second precision', () => {
    expect(rfc3339(now + 999)).toBe('2026-01-01T00:00:00Z');
    expect(wireTime(new Date(now))).toBe('2026-01-01T00:00:00Z');
    expect(wireTime('as-is')).toBe('as-is');
  });
});

describe('setPodCondition', () => {
  const old = {
    type: 'Ready',
    status: 'True',
    reason: 'R',
    lastTransitionTime: new Date(now - 60_000),
  };

  it('adds a missing condition', () => {
    const r = setPodCondition([], { type: 'DisruptionTarget', status: 'True', reason: 'X' }, now);
    expect(r).toEqual({
      changed: true,
      conditions: [
        { type: 'DisruptionTarget', status: 'True', reason: 'X', lastTransitionTime: rfc3339(now) },
      ],
    });
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const flipped = setPodCondition([old], { type: 'Ready', status: 'False', reason: 'R' }, now);
    expect(flipped.conditions[0].lastTransitionTime).toBe(rfc3339(now));
    const reworded = setPodCondition([old], { type: 'Ready', status: 'True', reason: 'S' }, now);
    expect(reworded).toEqual({
      changed: true,
      conditions: [{ type: 'Ready', status: 'True', reason: 'S', lastTransitionTime: rfc3339(now - 60_000) }],
    });
  });

  it('reports no change for the same status, reason and message', () => {
    expect(setPodCondition([old], { type: 'Ready', status: 'True', reason: 'R' }, now).changed).toBe(false);
  });

  it('finds a condition by type', () => {
    expect(podCondition({ status: { conditions: [old] } }, 'Ready')).toBe(old);
    expect(podCondition({}, 'Ready')).toBeUndefined();
  });
});

describe('setStatusCondition', () => {
  it('keeps lastTransitionTime unless the status changes', () => {
    const base = { type: 'A', status: 'True', reason: 'r', message: '' };
    const first = setStatusCondition(undefined, base, now);
    const same = setStatusCondition(first, { ...base, reason: 'other' }, now + 5000);
    expect(same[0]).toEqual({ ...base, reason: 'other', lastTransitionTime: rfc3339(now) });
    const flipped = setStatusCondition(same, { ...base, status: 'False' }, now + 5000);
    expect(flipped[0].lastTransitionTime).toBe(rfc3339(now + 5000));
  });
});
