import { describe, expect, it } from 'vitest';
import { isActive, isAvailable, nextAvailableIn, toMs } from './pods.js';
import { fixturePod as pod } from './testPods.js';

describe('pod predicates', () => {
  const since = '2024-01-01T00:00:10Z';
  const at = (s: string) => Date.parse(s);
  it.each([
    ['ready, minReadySeconds 0', { ready: true }, 0, at(since), true],
    ['not ready', { ready: false }, 0, at(since), false],
    ['ready but too recently', { ready: true, readySince: since }, 10, at('2024-01-01T00:00:15Z'), false],
    ['ready long enough', { ready: true, readySince: since }, 10, at('2024-01-01T00:00:21Z'), true],
  ])('isAvailable: %s', (_n, f, minReady, now, want) => {
    expect(isAvailable(pod({ name: 'p', node: 'n', ...f }), minReady, now)).toBe(want);
  });

  it('nextAvailableIn points at the first pod still inside minReadySeconds', () => {
    const pods = [pod({ name: 'a', node: 'n', ready: true, readySince: since })];
    expect(nextAvailableIn(pods, 10, at('2024-01-01T00:00:15Z'))).toBe(5001);
    expect(nextAvailableIn(pods, 10, at('2024-01-01T00:00:30Z'))).toBeUndefined();
    expect(nextAvailableIn(pods, 0, 0)).toBeUndefined();
  });

  it('isActive excludes terminating and finished pods', () => {
    expect(isActive(pod({ name: 'a', node: 'n' }))).toBe(true);
    expect(isActive(pod({ name: 'a', node: 'n', deleting: true }))).toBe(false);
    expect(isActive(pod({ name: 'a', node: 'n', phase: 'Failed' }))).toBe(false);
  });

  it('toMs reads Date and string timestamps alike', () => {
    expect(toMs(new Date(since))).toBe(toMs(since));
    expect(toMs(undefined)).toBeUndefined();
    expect(toMs('garbage')).toBeUndefined();
  });
});
