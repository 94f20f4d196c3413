import { describe, expect, it } from 'vitest';
import { situationOf } from './situation';
import { changesOf, pushSample } from './trend';
import { input, NOW } from './fixtures.test-helpers';
import type { SituationSample } from './types';

const zero = situationOf(input());
const at = (ago: number, nodesNotReady: number): SituationSample => ({
  at: NOW - ago,
  counts: { ...zero, nodesNotReady },
});

describe('changesOf', () => {
  it.each([
    ['no samples: unknown, not zero', [], { nodesNotReady: 3 }, {}],
    ['only recent samples: still unknown', [at(60_000, 0)], { nodesNotReady: 3 }, {}],
    ['a sample 5 minutes old', [at(300_000, 1), at(60_000, 2)], { nodesNotReady: 3 }, { m5: 2 }],
    [
      'the newest sample old enough for each window',
      [at(1_000_000, 0), at(900_000, 1), at(400_000, 2), at(300_000, 4)],
      { nodesNotReady: 3 },
      { m5: -1, m15: 2 },
    ],
    [
      'a sample a sampler period short of the window stands for it',
      [at(290_000, 5)],
      { nodesNotReady: 3 },
      { m5: -2 },
    ],
  ])('%s', (_, samples, counts, expected) => {
    const c = changesOf(NOW, { ...zero, ...counts }, samples as SituationSample[]);
    expect(c.nodesNotReady).toEqual(expected);
    expect(c.volumesStuck).toEqual({
      ...('m5' in expected ? { m5: 0 } : {}),
      ...('m15' in expected ? { m15: 0 } : {}),
    });
  });
});

describe('pushSample', () => {
  it('keeps only what the 15-minute window needs, and a minute more', () => {
    const ring: SituationSample[] = [];
    for (let t = 0; t <= 30 * 60_000; t += 10_000) pushSample(ring, { at: t, counts: zero });
    expect(ring[0].at).toBe(30 * 60_000 - 16 * 60_000);
    expect(ring.at(-1)?.at).toBe(30 * 60_000);
  });
});
