import { expect, it } from 'vitest';
import { SHORT_SEEDS, seedsFromEnv } from './seeds.js';

it('takes a count, a list, or the short set', () => {
  expect(seedsFromEnv({})).toEqual(SHORT_SEEDS);
  expect(seedsFromEnv({ PALISADE_FAULT_SEEDS: '3' })).toEqual([1, 2, 3]);
  expect(seedsFromEnv({ PALISADE_FAULT_SEEDS: '7, 42' })).toEqual([7, 42]);
  expect(() => seedsFromEnv({ PALISADE_FAULT_SEEDS: 'many' })).toThrow(/a count \(100\) or a list/);
});
