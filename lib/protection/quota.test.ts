import { describe, expect, it } from 'vitest';
import { admitBatch, type BatchItem, type PodHealth, quotaState, type Verdict } from './quota.js';
import type { Criterion } from './types.js';

const full: PodHealth = { scheduled: true, running: true, ready: true, available: true };
const readyNotAvailable: PodHealth = { ...full, available: false };
const notReady: PodHealth = { ...full, ready: false, available: false };
const item = (criterion: Criterion, health: PodHealth): BatchItem => ({ criterion, health });

interface Fixture {
  minAvailable: number;
  scheduled: number;
  running: number;
  ready: number;
  available: number;
  lag: number;
  maxLag: number;
}

function run(f: Fixture, items: BatchItem[]): Verdict[] {
  const { minAvailable, lag, maxLag, ...counts } = f;
  return admitBatch(quotaState(counts, minAvailable, lag, maxLag), items);
}

// Podseidon's disruption quota table (webhook/handler/disruptionquota), case for case.
describe('admitBatch: Podseidon quota cases', () => {
  it.each<[string, Fixture, BatchItem[], Verdict[]]>([
    [
      'AllDeny',
      { minAvailable: 10, scheduled: 10, running: 10, ready: 10, available: 10, lag: 0, maxLag: 100 },
      [item('Available', full), item('Available', full)],
      ['Denied', 'Denied'],
    ],
    [
      'AllAllow',
      { minAvailable: 8, scheduled: 10, running: 10, ready: 10, available: 10, lag: 0, maxLag: 100 },
      [item('Available', full), item('Available', full)],
      ['Ok', 'Ok'],
    ],
    [
      // the newest is judged first: 12 > 10+1; then 11 <= 11 twice: retry, not reject
      'SingleTransition',
      { minAvailable: 10, scheduled: 12, running: 12, ready: 12, available: 12, lag: 1, maxLag: 100 },
      [item('Available', full), item('Available', full), item('Available', full)],
      ['Retry', 'Retry', 'Ok'],
    ],
    [
      'AllowAlreadyUnavailable',
      { minAvailable: 10, scheduled: 10, running: 10, ready: 10, available: 10, lag: 1, maxLag: 100 },
      [item('Available', readyNotAvailable)],
      ['AlreadyUnhealthy'],
    ],
    [
      'AllowAlreadyRunningWithCriterion',
      { minAvailable: 10, scheduled: 11, running: 11, ready: 8, available: 8, lag: 0, maxLag: 100 },
      [item('Running', readyNotAvailable)],
      ['Ok'],
    ],
    [
      'MultiCriteria',
      { minAvailable: 10, scheduled: 13, running: 11, ready: 11, available: 11, lag: 0, maxLag: 100 },
      [
        item('Scheduled', readyNotAvailable),
        item('Running', readyNotAvailable),
        item('Available', { ...notReady }),
        item('Available', full),
        item('Available', full),
      ],
      ['Ok', 'Denied', 'AlreadyUnhealthy', 'Denied', 'Ok'],
    ],
  ])('%s', (_name, fixture, items, expected) => {
    expect(run(fixture, items)).toEqual(expected);
  });
});

describe('admitBatch: lag and the concurrent-lag limit', () => {
  const base = { minAvailable: 5, scheduled: 20, running: 20, ready: 20, available: 20 };
  it.each<[string, Fixture, number, Verdict[]]>([
    ['lag reached maxConcurrentLag: retry with quota left', { ...base, lag: 3, maxLag: 3 }, 1, ['Retry']],
    ['one slot left: the newest gets it', { ...base, lag: 2, maxLag: 3 }, 2, ['Retry', 'Ok']],
    ['no limit when maxConcurrentLag is 0', { ...base, lag: 10, maxLag: 0 }, 2, ['Ok', 'Ok']],
    ['within minAvailable + lag: retry', { ...base, available: 8, lag: 3, maxLag: 0 }, 1, ['Retry']],
  ])('%s', (_n, fixture, n, expected) => {
    expect(
      run(
        fixture,
        Array.from({ length: n }, () => item('Available', full)),
      ),
    ).toEqual(expected);
  });

  it('a storm never admits more than count - minAvailable', () => {
    const verdicts = run(
      { minAvailable: 900, scheduled: 1000, running: 1000, ready: 1000, available: 1000, lag: 0, maxLag: 0 },
      Array.from({ length: 2000 }, () => item('Available', full)),
    );
    expect(verdicts.filter((v) => v === 'Ok')).toHaveLength(100);
    expect(verdicts.filter((v) => v === 'Denied')).toHaveLength(1900);
  });

  it('unhealthy pods use no lag budget', () => {
    const verdicts = run(
      { minAvailable: 0, scheduled: 10, running: 10, ready: 10, available: 10, lag: 0, maxLag: 1 },
      [item('Available', full), item('Available', notReady), item('Available', notReady)],
    );
    expect(verdicts).toEqual(['Ok', 'AlreadyUnhealthy', 'AlreadyUnhealthy']);
  });
});
