import { describe, expect, it } from 'vitest';
import { parseQuantity } from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['1Gi', 2 ** 30],
    ['10Gi', 10 * 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['500M', 500e6],
    ['1G', 1e9],
    ['100Ki', 102_400],
    ['1e3', 1000],
    ['2E2', 200],
    ['1E', 1e18],
    ['250m', 0.25],
    ['42', 42],
    [7, 7],
    ['0.1', 0.1],
    ['.5', 0.5],
    ['1M', 1e6],
    ['128Mi', 128 * 2 ** 20],
    ['1E-3', 0.001],
    ['100n', 1e-7],
  ])('%s', (q, want) => expect(parseQuantity(q)).toBeCloseTo(want as number));

  it.each([['abc'], ['1Gb'], ['1Xi'], [''], [undefined], ['Gi']])('rejects %s', (q) =>
    expect(parseQuantity(q)).toBeUndefined(),
  );
});
