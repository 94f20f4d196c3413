import { describe, expect, it } from 'vitest';
import {
  atOrBelowFloor,
  type PodProtectorIndex,
  protectedCount,
  protectorsOf,
  summarizeProtectors,
} from './protection';

const row = (minAvailable: number, aggregated: number, estimated: number, dangling = false) => ({
  key: `ns/p-${minAvailable}-${aggregated}-${estimated}`,
  minAvailable,
  aggregated,
  estimated,
  dangling,
});

describe('atOrBelowFloor', () => {
  it.each([
    ['above on both counts', row(3, 4, 4), false],
    ['exactly at the floor', row(3, 3, 3), true],
    ['estimate at the floor while aggregation lags', row(3, 4, 3), true],
    ['aggregated below, estimate above (pods died)', row(3, 2, 4), true],
    ['floor 0 with nothing left', row(0, 0, 0), true],
    ['floor 0 with one pod', row(0, 1, 1), false],
  ])('%s', (_name, r, want) => {
    expect(atOrBelowFloor(r)).toBe(want);
  });
});

describe('summarizeProtectors', () => {
  it('counts totals, those at or below the floor and dangling ones', () => {
    expect(summarizeProtectors([row(3, 4, 4), row(3, 3, 3), row(2, 1, 1, true), row(0, 5, 5, true)])).toEqual(
      {
        total: 4,
        atOrBelowFloor: 2,
        dangling: 2,
      },
    );
  });
  it('is all zeros with no protectors', () => {
    expect(summarizeProtectors([])).toEqual({ total: 0, atOrBelowFloor: 0, dangling: 0 });
  });
});

describe('pods and their protectors', () => {
  const index: PodProtectorIndex = new Map([
    ['shop/checkout-a', ['shop/deployment-checkout']],
    ['shop/db-0', ['shop/statefulset-db', 'shop/all-db']],
  ]);
  const pods = [
    { namespace: 'shop', name: 'checkout-a' },
    { namespace: 'shop', name: 'db-0' },
    { namespace: 'shop', name: 'web-1' },
    { namespace: 'other', name: 'checkout-a' },
  ];
  it('counts protected pods by namespace and name', () => {
    expect(protectedCount(pods, index)).toBe(2);
    expect(protectedCount(pods, undefined)).toBe(0);
  });
  it('lists the distinct protectors, sorted', () => {
    expect(protectorsOf(pods, index)).toEqual([
      'shop/all-db',
      'shop/deployment-checkout',
      'shop/statefulset-db',
    ]);
    expect(protectorsOf([], index)).toEqual([]);
  });
});
