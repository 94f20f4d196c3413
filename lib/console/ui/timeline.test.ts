import { describe, expect, it } from 'vitest';
import { assignLanes, layoutTimeline } from './timeline';

describe('layoutTimeline', () => {
  it('returns null for a pod that is not terminating and has no steps', () =>
    expect(layoutTimeline({}, undefined, 0)).toBeNull());

  it('places request, steps, deadline and now in time order within [0, 1]', () => {
    const l = layoutTimeline(
      { deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 },
      [
        { step: 'SIGTERM', at: 3_100 },
        { step: 'observed', at: 100 },
        { step: 'preStop-started', at: 120 },
        { step: 'preStop-finished', at: 3_000 },
      ],
      10_000,
    )!;
    expect(l.marks.map((m) => m.label)).toEqual([
      'delete requested',
      'kubelet observed',
      'preStop start',
      'preStop done',
      'SIGTERM',
      'now',
      'grace ends',
    ]);
    for (const m of l.marks) {
      expect(m.x).toBeGreaterThanOrEqual(0);
      expect(m.x).toBeLessThanOrEqual(1);
    }
    expect(l.grace!.x0).toBeLessThan(l.grace!.x1);
    expect(l.preStop).toMatchObject({ cutShort: false });
    expect(l.finished).toBe(false);
    // marks sorted by x
    const xs = l.marks.map((m) => m.x);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
  });

  it('has no "now" mark once removed, and marks a cut-short preStop', () => {
    const l = layoutTimeline(
      { deletionTimestamp: 2_000, deletionGracePeriodSeconds: 2 },
      [
        { step: 'preStop-started', at: 10 },
        { step: 'preStop-cut-short', at: 2_000 },
        { step: 'SIGKILL', at: 4_000 },
        { step: 'removed', at: 4_200 },
      ],
      99_000,
    )!;
    expect(l.finished).toBe(true);
    expect(l.marks.some((m) => m.kind === 'now')).toBe(false);
    expect(l.preStop?.cutShort).toBe(true);
    expect(l.end).toBeLessThan(99_000);
  });

  it('works from steps alone (no deletionTimestamp in the view any more)', () => {
    const l = layoutTimeline({}, [{ step: 'observed', at: 5 }], 5)!;
    expect(l.grace).toBeUndefined();
    expect(l.end - l.start).toBeGreaterThanOrEqual(1000);
  });
});

describe('assignLanes', () => {
  it.each([
    [
      [0, 0.5, 1],
      [0, 0, 0],
    ],
    [
      [0, 0.01, 0.02, 0.5],
      [0, 1, 2, 0],
    ],
    [
      [0, 0.01, 0.02, 0.03],
      [0, 1, 2, 3],
    ],
    // more close marks than lanes: the least recently used lane is reused
    [
      [0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08],
      [0, 1, 2, 3, 4, 5, 6, 7, 0],
    ],
  ])('%o -> lanes %o', (xs, lanes) =>
    expect(assignLanes(xs.map((x) => ({ x }))).map((m) => m.lane)).toEqual(lanes),
  );
});
