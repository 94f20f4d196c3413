import { describe, expect, it } from 'vitest';
import {
  countDelete,
  emptyLows,
  emptyTally,
  formatReport,
  outOfOrder,
  refusedTotal,
  type Sample,
  track,
} from './tally';

const pod = (uid: string, available = true) => ({ uid, name: `pod-${uid}`, available });

describe('countDelete', () => {
  const cases: [string, [number, ReturnType<typeof pod>][], Partial<ReturnType<typeof emptyTally>>][] = [
    [
      'an admitted available pod is taken down',
      [[200, pod('a')]],
      { admitted: 1, takenDown: { a: 'pod-a' } },
    ],
    [
      'an admitted replacement that was not Ready takes nothing down',
      [[200, pod('b', false)]],
      { admitted: 1 },
    ],
    [
      'the same pod admitted twice (second time terminating) is one pod',
      [
        [200, pod('a')],
        [200, pod('a')],
      ],
      {
        admitted: 2,
        takenDown: { a: 'pod-a' },
      },
    ],
    [
      '409 and 429 are refusals by code',
      [
        [409, pod('a')],
        [429, pod('a')],
        [429, pod('b')],
      ],
      {
        refused: { '409': 1, '429': 2 },
      },
    ],
    ['404 means another worker got there first', [[404, pod('a')]], { gone: 1 }],
    [
      'anything else is an error, no answer is "network"',
      [
        [500, pod('a')],
        [0, pod('a')],
      ],
      {
        errors: { '500': 1, network: 1 },
      },
    ],
  ];
  it.each(cases)('%s', (_name, answers, want) => {
    const t = emptyTally();
    for (const [status, p] of answers) countDelete(t, status, p);
    expect(t).toEqual({ ...emptyTally(), requests: answers.length, ...want });
  });

  it('totals the refusals', () => {
    const t = emptyTally();
    for (const s of [409, 429, 429, 200]) countDelete(t, s, pod('x'));
    expect(refusedTotal(t)).toBe(3);
  });
});

describe('track', () => {
  const s = (available: number, aggregated: number, estimated: number): Sample => ({
    at: 0,
    available,
    aggregated,
    estimated,
  });
  const cases: [string, Sample[], number, { min: [number, number, number]; below: number }][] = [
    ['at the floor is fine', [s(4, 4, 4), s(3, 3, 3)], 3, { min: [3, 3, 3], below: 0 }],
    ['an estimate under the floor alone is not a breach', [s(3, 3, 2)], 3, { min: [3, 3, 2], below: 0 }],
    ['available pods under the floor are', [s(2, 3, 3)], 3, { min: [2, 3, 3], below: 1 }],
    ['so is an aggregated count under it', [s(3, 2, 2), s(2, 2, 2)], 3, { min: [2, 2, 2], below: 2 }],
  ];
  it.each(cases)('%s', (_name, samples, floor, want) => {
    const l = emptyLows();
    for (const x of samples) track(l, x, floor);
    expect([l.minAvailable, l.minAggregated, l.minEstimated]).toEqual(want.min);
    expect(l.belowFloor).toHaveLength(want.below);
    expect(l.samples).toBe(samples.length);
  });
});

describe('formatReport', () => {
  it('names the counts, the lows and the violations', () => {
    const tally = emptyTally();
    countDelete(tally, 200, pod('a'));
    countDelete(tally, 429, pod('b'));
    const lows = emptyLows();
    track(lows, s3(), 3);
    const text = formatReport({
      seconds: 2,
      workers: 4,
      workloads: [{ protector: 'shop/deployment-checkout', minAvailable: 3, replicas: 4, tally, lows }],
      violations: [],
      artifacts: 'demo-results/storm',
    });
    expect(text).toContain('4 runaway workers deleting every pod for 2.0 s (1 deletions/s)');
    expect(text).toContain('admitted 1 (available pods taken down: 1), refused 1 (1 × 429)');
    expect(text).toContain('available pods 3, aggregated 3, estimated 3');
    expect(text).toContain('checker violations: 0');
  });
});

function s3(): Sample {
  return { at: 0, available: 3, aggregated: 3, estimated: 3 };
}

describe('outOfOrder', () => {
  const cases: [string[], number][] = [
    [[], 0],
    [['20:49:02', '20:49:02', '20:48:48'], 0],
    [['20:48:48', '20:48:48', '20:49:02', '20:49:02'], 1],
    [['20:48:48', '20:49:02', '20:48:40', '20:49:00'], 2],
  ];
  it.each(cases)('%j -> %i', (times, want) => expect(outOfOrder(times)).toBe(want));
});
