import { describe, expect, it } from 'vitest';
import { lagOf } from './buckets.js';
import {
  type Cell,
  recordAdmissions,
  recordAggregation,
  releaseAdmission,
  removeCells,
  summarize,
} from './status.js';

const counts = (n: number) => ({ total: n, scheduled: n, running: n, ready: n, available: n });
const cell = (id: string, n: number, lastEventTime?: number): Cell => ({
  id,
  counts: counts(n),
  lastEventTime,
  buckets: [],
});

describe('summarize', () => {
  it('adds the cells and takes the lag off the estimate', () => {
    let cells = [cell('a', 5, 100), cell('b', 4, 200)];
    cells = recordAdmissions(
      cells,
      'a',
      [
        { podUid: 'x', at: 150 },
        { podUid: 'y', at: 160 },
      ],
      100,
    );
    const s = summarize(cells, 1100);
    expect(s).toMatchObject({
      totalReplicas: 9,
      aggregatedAvailableReplicas: 9,
      estimatedAvailableReplicas: 7,
      // cell a owes an aggregation since 100
      maxLatencyMillis: 1000,
    });
  });
  it('no outstanding history: no latency', () => {
    expect(summarize([cell('a', 3, 5)], 1000).maxLatencyMillis).toBe(0);
  });
  it('cells whose counts add up past int32 give a summary the CRD still admits (saturated)', () => {
    // found by lib/protection/fuzz.test.ts: each cell's count is an int32 the API server took,
    // their sum was not, and the status write carrying it was refused every time
    const max = 2 ** 31 - 1;
    const cells = recordAdmissions(
      [cell('a', max, 100), cell('b', 5, 100)],
      'a',
      [{ podUid: 'x', at: 150 }],
      100,
    );
    const s = summarize(cells, 1000);
    for (const [field, v] of Object.entries(s))
      if (field !== 'maxLatencyMillis') expect([field, v <= max && v >= -(2 ** 31)]).toEqual([field, true]);
    expect(s).toMatchObject({
      aggregatedAvailableReplicas: max,
      estimatedAvailableReplicas: max,
      admissionLag: 1,
    });
  });
});

describe('recordAggregation', () => {
  it('drops the buckets the snapshot has seen, keeps newer ones', () => {
    let cells = recordAdmissions(
      [cell('a', 10, 100)],
      'a',
      [
        { podUid: 'x', at: 150 },
        { podUid: 'y', at: 250 },
      ],
      100,
    );
    cells = recordAggregation(cells, 'a', counts(9), 200);
    expect(cells[0].buckets.map((b) => b.podUid)).toEqual(['y']);
    expect(summarize(cells, 300).estimatedAvailableReplicas).toBe(8);
  });
  it('the snapshot time never moves backwards', () => {
    const cells = recordAggregation([cell('a', 10, 500)], 'a', counts(10), 300);
    expect(cells[0].lastEventTime).toBe(500);
  });
  it('creates a missing cell', () => {
    expect(recordAggregation([], 'b', counts(3), 10).map((c) => c.id)).toEqual(['b']);
  });
});

describe('releaseAdmission and removeCells', () => {
  it('releases from a compacted bucket when the single one is gone', () => {
    let cells = recordAdmissions(
      [cell('a', 10, 0)],
      'a',
      [1, 2, 3, 4].map((i) => ({ podUid: `u${i}`, at: i })),
      2,
    );
    expect(lagOf(cells[0].buckets)).toBe(4);
    cells = releaseAdmission(cells, 'a', 'u1', 1);
    expect(lagOf(cells[0].buckets)).toBe(3);
  });
  it('removes named cells', () => {
    expect(removeCells([cell('a', 1), cell('b', 1)], ['b']).map((c) => c.id)).toEqual(['a']);
  });
});
