import { describe, expect, it } from 'vitest';
import { formatAge } from './index.js';
import { NOW, ago } from './testutil.js';

const MIN = 60;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('formatAge', () => {
  it.each([
    [0, '0s'],
    [-1, '0s'], // a second of clock skew reads as now
    [-3, '<invalid>'],
    [59, '59s'],
    [119, '119s'],
    [120, '2m'],
    [200, '3m20s'],
    [9 * MIN + 59, '9m59s'],
    [10 * MIN + 30, '10m'],
    [179 * MIN, '179m'],
    [3 * HOUR, '3h'],
    [3 * HOUR + 5 * MIN, '3h5m'],
    [8 * HOUR + 5 * MIN, '8h'],
    [47 * HOUR, '47h'],
    [2 * DAY + 3 * HOUR, '2d3h'],
    [7 * DAY + 23 * HOUR, '7d23h'],
    [8 * DAY + 5 * HOUR, '8d'],
    [729 * DAY, '729d'],
    [730 * DAY, '2y'],
    [733 * DAY, '2y3d'],
    [8 * 365 * DAY + 40 * DAY, '8y'],
  ])('%i seconds ago -> %s', (seconds, expected) => {
    expect(formatAge(ago(seconds), NOW)).toBe(expected);
  });

  it.each([undefined, '', 'not a time'])('%j -> <unknown>', (from) => {
    expect(formatAge(from, NOW)).toBe('<unknown>');
  });
});
