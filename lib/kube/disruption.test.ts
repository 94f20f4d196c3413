import { describe, expect, it } from 'vitest';
import {
  type BudgetPod,
  type BudgetSpec,
  conditionUpToDate,
  countHealthy,
  DELETION_TIMEOUT_MS,
  disruptionAllowedCondition,
  disruptionsAllowed,
  expectedAndDesired,
  needsScale,
  pruneDisruptedPods,
  sameDisruptedPods,
  scaledValue,
} from './disruption.js';

describe('scaledValue', () => {
  const cases: [number | string, number, boolean, number][] = [
    [2, 10, true, 2],
    ['50%', 5, true, 3],
    ['50%', 5, false, 2],
    ['34%', 3, true, 2],
    ['0%', 7, true, 0],
    ['100%', 7, true, 7],
    ['3', 10, true, 3],
  ];
  it.each(cases)('%j of %i (round up: %s) = %i', (v, total, up, want) => {
    expect(scaledValue(v, total, up)).toBe(want);
  });

  it('rejects strings that are not percentages', () => {
    expect(() => scaledValue('half', 4, true)).toThrow('string is not a percentage');
  });
});

describe('expectedAndDesired', () => {
  const cases: [string, BudgetSpec, number, number, { expectedPods: number; desiredHealthy: number }][] = [
    ['integer minAvailable counts pods', { minAvailable: 2 }, 3, 5, { expectedPods: 3, desiredHealthy: 2 }],
    [
      'percentage minAvailable uses the scale, rounded up',
      { minAvailable: '50%' },
      3,
      5,
      { expectedPods: 5, desiredHealthy: 3 },
    ],
    ['integer maxUnavailable', { maxUnavailable: 1 }, 2, 3, { expectedPods: 3, desiredHealthy: 2 }],
    [
      'percentage maxUnavailable rounds the unavailable up',
      { maxUnavailable: '30%' },
      5,
      5,
      { expectedPods: 5, desiredHealthy: 3 },
    ],
    ['maxUnavailable above the scale', { maxUnavailable: 7 }, 3, 3, { expectedPods: 3, desiredHealthy: 0 }],
    ['neither set', {}, 3, 3, { expectedPods: 0, desiredHealthy: 0 }],
  ];
  it.each(cases)('%s', (_, spec, pods, scale, want) => {
    expect(expectedAndDesired(spec, pods, scale)).toEqual(want);
  });

  it('says when the controllers scale is needed', () => {
    expect(needsScale({ minAvailable: 1 })).toBe(false);
    expect(needsScale({ minAvailable: '10%' })).toBe(true);
    expect(needsScale({ maxUnavailable: 0 })).toBe(true);
  });
});

describe('disruptionsAllowed', () => {
  const cases: [number, number, number, number][] = [
    [3, 2, 3, 1],
    [2, 2, 3, 0],
    [1, 2, 3, 0],
    [3, 0, 0, 0],
  ];
  it.each(cases)('healthy %i, desired %i, expected %i -> %i', (healthy, desired, expected, want) => {
    expect(disruptionsAllowed(healthy, desired, expected)).toBe(want);
  });
});

describe('disrupted pods', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const at = (msAgo: number) => new Date(now - msAgo).toISOString().replace('.000Z', 'Z');
  const pods: BudgetPod[] = [
    { name: 'a', terminating: false, ready: true },
    { name: 'b', terminating: false, ready: true },
    { name: 'c', terminating: true, ready: true },
    { name: 'd', terminating: false, ready: true },
    { name: 'e', terminating: false, ready: false },
  ];

  it('keeps recent evictions of live pods and drops the rest', () => {
    const disrupted = { a: at(10_000), c: at(10_000), d: at(DELETION_TIMEOUT_MS + 1000), gone: at(1000) };
    const r = pruneDisruptedPods(disrupted, pods, now);
    expect(r.kept).toEqual({ a: at(10_000) });
    expect(r.expired).toEqual(['d']);
    expect(r.recheckAtMs).toBe(now - 10_000 + DELETION_TIMEOUT_MS);
    expect(countHealthy(pods, r.kept)).toBe(2);
  });

  it('has nothing to recheck without evictions', () => {
    expect(pruneDisruptedPods(undefined, pods, now)).toEqual({ kept: {}, expired: [] });
    expect(countHealthy(pods, {})).toBe(3);
  });

  it('compares maps by time', () => {
    expect(sameDisruptedPods({ a: new Date(now) }, { a: at(0) })).toBe(true);
    expect(sameDisruptedPods(undefined, {})).toBe(true);
    expect(sameDisruptedPods({ a: at(0) }, {})).toBe(false);
  });
});

describe('DisruptionAllowed condition', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  it('is True with SufficientPods when a disruption is allowed', () => {
    const [c] = disruptionAllowedCondition(undefined, 1, 4, now);
    expect(c).toEqual({
      type: 'DisruptionAllowed',
      status: 'True',
      reason: 'SufficientPods',
      message: '',
      observedGeneration: 4,
      lastTransitionTime: '2026-01-01T01:00:00Z',
    });
    expect(conditionUpToDate([c], 1, 4, 4)).toBe(true);
    expect(conditionUpToDate([c], 0, 4, 4)).toBe(false);
    expect(conditionUpToDate([c], 1, 3, 4)).toBe(false);
  });

  it('is False with InsufficientPods otherwise, keeping the transition time while unchanged', () => {
    const first = disruptionAllowedCondition(undefined, 0, 1, now);
    const later = disruptionAllowedCondition(first, 0, 2, now + 60_000);
    expect(later).toEqual([{ ...first[0], observedGeneration: 2 }]);
    expect(conditionUpToDate(later, 0, 2, 2)).toBe(true);
    expect(conditionUpToDate(undefined, 0, 2, 2)).toBe(false);
  });
});
