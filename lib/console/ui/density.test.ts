import { describe, expect, it } from 'vitest';
import { effectiveDensity, parseDensity } from './density';

describe('effectiveDensity', () => {
  it.each([
    ['auto', 12, 'tiles'],
    ['auto', 1500, 'tiles'],
    ['auto', 1501, 'compact'],
    ['auto', 5000, 'compact'],
    ['tiles', 5000, 'tiles'],
    ['compact', 12, 'compact'],
  ] as const)('%s with %i nodes -> %s', (choice, n, want) => {
    expect(effectiveDensity(choice, n)).toBe(want);
  });
  it.each([
    ['tiles', 'tiles'],
    ['compact', 'compact'],
    ['auto', 'auto'],
    [null, 'auto'],
    ['bogus', 'auto'],
  ])('parses %s as %s', (v, want) => {
    expect(parseDensity(v)).toBe(want);
  });
});
