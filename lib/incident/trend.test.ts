import { describe, expect, it } from 'vitest';
import { situationOf } from './situation';
import { changesOf, mergeSamples, pushSample, situationCounts } from './trend';
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

describe('mergeSamples', () => {
  it.each([
    ['nothing stored: the ring', [at(20_000, 1)], [], [20_000]],
    [
      'stored before a restart, then the ring',
      [at(10_000, 1)],
      [at(600_000, 0), at(300_000, 2)],
      [600_000, 300_000, 10_000],
    ],
    ['one per instant, the ring wins', [at(300_000, 7)], [at(300_000, 2)], [300_000]],
    ['older than the ring keeps: dropped', [at(0, 1)], [at(2_000_000, 0), at(900_000, 3)], [900_000, 0]],
    ['out of order: sorted', [], [at(100_000, 1), at(500_000, 2)], [500_000, 100_000]],
  ])('%s', (_, ring, stored, agesMs) => {
    const merged = mergeSamples(ring as SituationSample[], stored as SituationSample[]);
    expect(merged.map((s) => NOW - s.at)).toEqual(agesMs);
  });

  it('the ring wins at one instant', () => {
    expect(mergeSamples([at(300_000, 7)], [at(300_000, 2)])[0].counts.nodesNotReady).toBe(7);
  });
});

describe('situationCounts', () => {
  it.each([
    ['every count', zero, true],
    ['a count missing (an older version wrote it)', { ...zero, volumesSplitBrainRisk: undefined }, false],
    ['a negative count', { ...zero, nodesNotReady: -1 }, false],
    ['a fraction', { ...zero, nodesNotReady: 1.5 }, false],
    ['not a number', { ...zero, nodesNotReady: '1' }, false],
  ])('%s', (_, counts, ok) => {
    expect(situationCounts.safeParse(counts).success).toBe(ok);
  });
});
