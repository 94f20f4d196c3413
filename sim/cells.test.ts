import { describe, expect, it } from 'vitest';
import { cellScenario, shareOf } from './cells';
import { loadScenario, profilePath } from './scenario/load';

describe('shareOf', () => {
  it.each([
    [8, 2, [4, 4]],
    [3, 2, [2, 1]],
    [1, 2, [1, 0]],
    [0, 2, [0, 0]],
    [7, 3, [3, 2, 2]],
  ])('%i replicas over %i cells', (replicas, n, want) => {
    expect(Array.from({ length: n }, (_, i) => shareOf(replicas, i, n))).toEqual(want);
    expect(want.reduce((a, b) => a + b, 0)).toBe(replicas);
  });
});

describe('cellScenario', () => {
  it('gives each cell its share, unlabelled, under its own name', async () => {
    const s = await loadScenario(profilePath('cells'));
    const a = cellScenario(s, 'cell-a', 0, 2);
    expect(a.name).toBe('cells-cell-a');
    expect(a.workloads.map((w) => [w.name, w.replicas, w.protect])).toEqual([
      ['checkout', 4, false],
      ['orders-db', 2, false],
      ['storefront', 3, false],
    ]);
    // the core keeps the totals and the protect labels
    expect(s.workloads.filter((w) => w.protect).map((w) => w.name)).toEqual(['checkout', 'orders-db']);
  });
});
