import { describe, expect, it } from 'vitest';
import { nextHolderRecords, parseHolderRecords } from './holders.js';

const c22 = { node: 'c2-2', bootID: 'boot-1' };

describe('the holders record beside the map', () => {
  it.each([
    [
      'the first holder is recorded',
      undefined,
      '{"0":"a"}',
      { a: c22 },
      '{"a":{"node":"c2-2","bootID":"boot-1"}}',
    ],
    ['nothing to record, nothing written', undefined, '{}', {}, undefined],
    [
      'a pod that left the map leaves the record',
      '{"a":{"node":"c2-2","bootID":"boot-1"},"b":{"node":"b2-2"}}',
      '{"1":"b"}',
      {},
      '{"b":{"node":"b2-2"}}',
    ],
    [
      'unchanged: nothing written',
      '{"a":{"node":"c2-2","bootID":"boot-1"}}',
      '{"0":"a"}',
      { a: c22 },
      undefined,
    ],
    [
      'a pod seen on a new boot replaces its record',
      '{"a":{"node":"c2-2","bootID":"boot-0"}}',
      '{"0":"a"}',
      { a: c22 },
      '{"a":{"node":"c2-2","bootID":"boot-1"}}',
    ],
    [
      'an unreadable record starts over',
      'nonsense',
      '{"0":"a"}',
      { a: c22 },
      '{"a":{"node":"c2-2","bootID":"boot-1"}}',
    ],
  ] as const)('%s', (_what, raw, map, seen, want) =>
    expect(nextHolderRecords(raw, map, new Map(Object.entries(seen)))).toBe(want),
  );

  it('reads only well-formed entries', () =>
    expect([
      ...parseHolderRecords('{"a":{"node":"n1"},"b":{"node":""},"c":7,"d":{"node":"n2","bootID":3}}'),
    ]).toEqual([
      ['a', { node: 'n1' }],
      ['d', { node: 'n2' }],
    ]));
});
