import { describe, expect, it } from 'vitest';
import { freshnessOf } from './freshness';
import type { WatchActivity } from './types';

const NOW = 1_000_000;
const w = (kind: string, more: Partial<WatchActivity> = {}): WatchActivity => ({
  kind,
  synced: true,
  lastEventAt: NOW - 1_000,
  ...more,
});

describe('freshnessOf', () => {
  it.each([
    [
      'every watch current',
      [w('pods'), w('leases')],
      true,
      { stale: false, lagMs: 0, ageMs: 1_000, reasons: [] },
    ],
    [
      'a watch down for 5 s: lagging, not stale yet',
      [w('pods', { synced: false, downSince: NOW - 5_000 }), w('leases')],
      true,
      { stale: false, lagMs: 5_000, reasons: [{ code: 'watch-down', kind: 'pods', forMs: 5_000 }] },
    ],
    [
      'a watch down for 12 s: stale',
      [w('pods', { synced: false, downSince: NOW - 12_000 }), w('leases')],
      true,
      { stale: true, lagMs: 12_000 },
    ],
    [
      'heartbeats silent 25 s with an interval of 10 s: 15 s late, stale',
      [w('leases', { lastEventAt: NOW - 25_000 }), w('pods', { lastEventAt: NOW - 2_000 })],
      true,
      { stale: true, lagMs: 15_000, ageMs: 2_000, reasons: [{ code: 'heartbeats-silent', forMs: 15_000 }] },
    ],
    [
      'heartbeats silent but no node is up to send one: not stale',
      [w('leases', { lastEventAt: NOW - 60_000 })],
      false,
      { stale: false, lagMs: 0 },
    ],
    [
      'a watch that never listed: stale',
      [w('pods', { synced: false, lastEventAt: undefined })],
      true,
      { stale: true, reasons: [{ code: 'never-synced', kind: 'pods' }] },
    ],
  ])('%s', (_, watches, heartbeatsExpected, expected) => {
    expect(freshnessOf({ now: NOW, watches, heartbeatsExpected, heartbeatIntervalMs: 10_000 })).toMatchObject(
      expected,
    );
  });
});
