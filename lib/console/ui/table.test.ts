import { describe, expect, it } from 'vitest';
import { matchesSearch, sortRows, toggleSort, visibleRange, toggled } from './table';

describe('matchesSearch', () => {
  it.each([
    [['orders-db-0', 'shop'], '', true],
    [['orders-db-0', 'shop'], 'ORDERS', true],
    [['orders-db-0', 'shop'], 'orders shop', true],
    [['orders-db-0', 'shop'], 'orders web', false],
    [['a', undefined], 'a', true],
  ] as const)('%o ~ %s -> %s', (fields, q, want) => expect(matchesSearch(fields, q)).toBe(want));
});

describe('sortRows', () => {
  const rows = [
    { name: 'a1-10', age: 5 },
    { name: 'a1-2', age: undefined },
    { name: 'a1-1', age: 7 },
  ];
  const acc = { name: (r: (typeof rows)[0]) => r.name, age: (r: (typeof rows)[0]) => r.age };
  it.each([
    ['name', 'asc', ['a1-1', 'a1-2', 'a1-10']],
    ['name', 'desc', ['a1-10', 'a1-2', 'a1-1']],
    ['age', 'asc', ['a1-10', 'a1-1', 'a1-2']],
    ['age', 'desc', ['a1-1', 'a1-10', 'a1-2']],
  ] as const)('%s %s', (key, dir, want) =>
    expect(sortRows(rows, { key, dir }, acc).map((r) => r.name)).toEqual(want),
  );
});

describe('toggleSort', () => {
  it.each([
    [{ key: 'a', dir: 'asc' }, 'a', { key: 'a', dir: 'desc' }],
    [{ key: 'a', dir: 'desc' }, 'a', { key: 'a', dir: 'asc' }],
    [{ key: 'a', dir: 'desc' }, 'b', { key: 'b', dir: 'asc' }],
  ] as const)('%o + %s', (cur, key, want) => expect(toggleSort<string>(cur, key)).toEqual(want));
});

describe('visibleRange', () => {
  it.each([
    [0, 280, 28, 1000, 0, { from: 0, to: 10 }],
    [2800, 280, 28, 1000, 2, { from: 98, to: 112 }],
    [0, 280, 28, 3, 8, { from: 0, to: 3 }],
    [99999, 280, 28, 10, 0, { from: 10, to: 10 }],
  ])('scroll %i', (top, vp, rh, n, over, want) => expect(visibleRange(top, vp, rh, n, over)).toEqual(want));
});

describe('toggled', () => {
  it.each([
    [[], 'a', ['a']],
    [['a'], 'a', []],
    [['a', 'b'], 'c', ['a', 'b', 'c']],
    [['a', 'b'], 'b', ['a']],
  ])('%j toggling %s -> %j', (start, item, want) => {
    const before = new Set(start);
    expect([...toggled(before, item)]).toEqual(want);
    expect([...before]).toEqual(start); // a new set: React sees the change
  });
});
