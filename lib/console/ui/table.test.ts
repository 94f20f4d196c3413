import { describe, expect, it } from 'vitest';
import {
  compareByRank,
  compareNodeStates,
  comparePodStates,
  compareValues,
  matchesSearch,
  matchesTerms,
  searchTerms,
  toggled,
} from './table';

describe('matchesSearch', () => {
  it.each([
    [['orders-db-0', 'shop'], '', true],
    [['orders-db-0', 'shop'], 'ORDERS', true],
    [['orders-db-0', 'shop'], 'orders shop', true],
    [['orders-db-0', 'shop'], 'orders web', false],
    [['a', undefined], 'a', true],
  ] as const)('%o ~ %s -> %s', (fields, q, want) => expect(matchesSearch(fields, q)).toBe(want));
});

describe('searchTerms + matchesTerms', () => {
  it.each([
    ['', []],
    ['  Orders   SHOP ', ['orders', 'shop']],
    ['a\tb\nc', ['a', 'b', 'c']],
  ])('%j -> %j', (q, want) => expect(searchTerms(q)).toEqual(want));
  it.each([
    [['x'], [], true],
    [['orders-db-0', 'shop'], ['db-0', 'sho'], true],
    [['orders-db-0', undefined], ['shop'], false],
  ] as const)('%o ~ %o -> %s', (fields, terms, want) => expect(matchesTerms(fields, terms)).toBe(want));
});

describe('compareValues', () => {
  const sorted = (xs: (string | number | undefined)[]) => [...xs].sort(compareValues);
  it.each([
    [
      ['a1-10', 'a1-2', 'a1-1'],
      ['a1-1', 'a1-2', 'a1-10'],
    ],
    [
      [10, 9, 100],
      [9, 10, 100],
    ],
    [
      [undefined, 'b', 'a'],
      ['a', 'b', undefined],
    ],
    [
      [3, undefined, 1],
      [1, 3, undefined],
    ],
  ])('%j -> %j', (xs, want) => expect(sorted(xs)).toEqual(want));
  it('equal values compare 0', () => expect(compareValues('x', 'x')).toBe(0));
});

describe('compareByRank', () => {
  const cmp = compareByRank<string>(['hi', 'mid', 'lo']);
  it.each([
    ['hi', 'lo', -1],
    ['lo', 'mid', 1],
    ['mid', 'mid', 0],
    ['other', 'lo', 1], // unranked last
  ])('%s vs %s', (a, b, sign) => expect(Math.sign(cmp(a, b))).toBe(sign));
});

describe('domain state orders', () => {
  it('nodes: most urgent first', () =>
    expect(
      (['ready', 'suspect', 'unknown', 'cordoned', 'out-of-service', 'not-ready'] as const)
        .slice()
        .sort(compareNodeStates),
    ).toEqual(['out-of-service', 'unknown', 'not-ready', 'suspect', 'cordoned', 'ready']));
  it('pods: along their life', () =>
    expect((['Unknown', 'Ready', 'Pending', 'Terminating'] as const).slice().sort(comparePodStates)).toEqual([
      'Pending',
      'Ready',
      'Terminating',
      'Unknown',
    ]));
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
