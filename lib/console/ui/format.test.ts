import { describe, expect, it } from 'vitest';
import { formatAge, formatClock, formatCountdown, formatOffset } from './format';

describe('formatAge', () => {
  it.each([
    [-5, '0s'],
    [999, '0s'],
    [4_000, '4s'],
    [65_000, '1m05s'],
    [3_600_000 * 2 + 3 * 60_000, '2h03m'],
    [86_400_000 * 3 + 3_600_000 * 4, '3d04h'],
  ])('%i ms -> %s', (ms, want) => expect(formatAge(ms)).toBe(want));
});

describe('formatCountdown', () => {
  it.each([
    [30_000, 17_650, '12.3s left', false],
    [30_000, 30_000, '0.0s left', false],
    [30_000, 33_050, 'overrun 3.0s', true],
  ])('deadline %i at %i', (deadline, now, text, overdue) =>
    expect(formatCountdown(deadline, now)).toEqual({ text, overdue }),
  );
});

describe('formatOffset', () => {
  it.each([
    [0, '+0s'],
    [1250, '+1.25s'],
    [-500, '-0.50s'],
    [12_340, '+12.3s'],
  ])('%i -> %s', (ms, want) => expect(formatOffset(ms)).toBe(want));
});

describe('formatClock', () => {
  it('prints a dash for unknown', () => expect(formatClock(undefined)).toBe('—'));
  it('prints hh:mm:ss', () => expect(formatClock(new Date(2026, 0, 1, 4, 5, 6).getTime())).toBe('04:05:06'));
});
