import { describe, expect, it } from 'vitest';
import { fenceposts, planRecreate, planRolling, type RsView, scaledValue } from './rollout.js';

const rs = (name: string, replicas: number, available = replicas, created = 0): RsView => ({
  name,
  replicas,
  available,
  created,
});

describe('scaledValue and fenceposts', () => {
  it.each([
    [2, 10, true, 2],
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['0%', 10, true, 0],
    ['100%', 3, false, 3],
    ['33%', 4, true, 2],
    ['33%', 4, false, 1],
    ['3', 10, false, 3],
    [undefined, 10, true, 0],
  ] as const)('%j of %d (roundUp %s) = %d', (v, total, up, want) => {
    expect(scaledValue(v, total, up)).toBe(want);
  });

  it('rejects a malformed percentage', () => {
    expect(() => scaledValue('25 percent', 4, true)).toThrow(/invalid value for IntOrString/);
  });

  it.each([
    ['25%', '25%', 4, { surge: 1, unavailable: 1 }],
    ['25%', '25%', 1, { surge: 1, unavailable: 0 }],
    [0, 0, 3, { surge: 0, unavailable: 1 }],
    ['0%', '10%', 5, { surge: 0, unavailable: 1 }],
    [1, 5, 3, { surge: 1, unavailable: 3 }],
    [undefined, undefined, 10, { surge: 3, unavailable: 2 }],
  ] as const)('surge %j unavailable %j of %d', (s, u, d, want) => {
    expect(fenceposts(s, u, d)).toEqual(want);
  });
});

describe('planRolling', () => {
  const cases: [string, Parameters<typeof planRolling>[0], ReturnType<typeof planRolling>][] = [
    [
      'surges the new set first',
      { desired: 4, surge: 1, unavailable: 1, newSet: rs('new', 0), oldSets: [rs('old', 4)] },
      { kind: 'scaleNew', replicas: 1 },
    ],
    [
      'with surge used up, scales old down by what availability allows',
      { desired: 4, surge: 1, unavailable: 1, newSet: rs('new', 1, 0), oldSets: [rs('old', 4)] },
      { kind: 'scaleOld', changes: [{ name: 'old', replicas: 3 }] },
    ],
    [
      'counts the new set’s unavailable pods against the budget',
      { desired: 4, surge: 1, unavailable: 1, newSet: rs('new', 2, 0), oldSets: [rs('old', 3)] },
      { kind: 'none' },
    ],
    [
      'removes unhealthy old pods first, even without availability to spare',
      { desired: 4, surge: 0, unavailable: 1, newSet: rs('new', 1, 1), oldSets: [rs('old', 3, 1)] },
      { kind: 'scaleOld', changes: [{ name: 'old', replicas: 2 }] },
    ],
    [
      'maxSurge 0: old first, then new',
      { desired: 3, surge: 0, unavailable: 1, newSet: rs('new', 0), oldSets: [rs('old', 3)] },
      { kind: 'scaleOld', changes: [{ name: 'old', replicas: 2 }] },
    ],
    [
      'scales down the oldest old set first',
      {
        desired: 2,
        surge: 0,
        unavailable: 1,
        newSet: rs('new', 0),
        oldSets: [rs('mid', 1, 1, 20), rs('oldest', 1, 1, 10)],
      },
      { kind: 'scaleOld', changes: [{ name: 'oldest', replicas: 0 }] },
    ],
    [
      'shrinks a new set above desired',
      { desired: 2, surge: 1, unavailable: 0, newSet: rs('new', 4), oldSets: [] },
      { kind: 'scaleNew', replicas: 2 },
    ],
    [
      'finished rollout: nothing to do',
      { desired: 3, surge: 1, unavailable: 0, newSet: rs('new', 3), oldSets: [rs('old', 0)] },
      { kind: 'none' },
    ],
  ];
  it.each(cases)('%s', (_n, input, want) => {
    expect(planRolling(input)).toEqual(want);
  });

  it('never plans more than desired+surge pods or fewer than desired-unavailable available', () => {
    // simulate a rollout where pods become available one pass after they are asked for
    const desired = 5;
    const surge = 2;
    const unavailable = 1;
    let newSet = rs('new', 0, 0);
    let old = rs('old', 5, 5);
    for (let pass = 0; pass < 40; pass++) {
      const step = planRolling({ desired, surge, unavailable, newSet, oldSets: [old] });
      if (step.kind === 'scaleNew') newSet = { ...newSet, replicas: step.replicas };
      if (step.kind === 'scaleOld')
        old = { ...old, replicas: step.changes[0].replicas, available: step.changes[0].replicas };
      expect(newSet.replicas + old.replicas).toBeLessThanOrEqual(desired + surge);
      expect(newSet.available + old.available).toBeGreaterThanOrEqual(desired - unavailable);
      newSet = { ...newSet, available: newSet.replicas };
    }
    expect([newSet.replicas, old.replicas]).toEqual([5, 0]);
  });
});

describe('planRecreate', () => {
  it.each([
    [
      'scales old sets to zero first',
      rs('new', 0),
      [rs('a', 2)],
      true,
      { kind: 'scaleOld', changes: [{ name: 'a', replicas: 0 }] },
    ],
    ['waits while old pods exist (even terminating)', undefined, [rs('a', 0)], true, { kind: 'wait' }],
    [
      'creates the new set once they are gone',
      undefined,
      [rs('a', 0)],
      false,
      { kind: 'createNew', replicas: 3 },
    ],
    ['scales an existing new set up', rs('new', 0), [rs('a', 0)], false, { kind: 'scaleNew', replicas: 3 }],
    ['done', rs('new', 3), [], false, { kind: 'none' }],
  ] as const)('%s', (_n, newSet, old, running, want) => {
    expect(planRecreate(3, newSet, [...old], running)).toEqual(want);
  });
});
