import { describe, expect, it } from 'vitest';
import { idOf, parseIdMap, serializeIdMap } from './map.js';

describe('reading the instance-ID map', () => {
  const valid: [string | undefined, [number, string][]][] = [
    [undefined, []],
    ['{}', []],
    [' { "0" : "web-a" } ', [[0, 'web-a']]],
    [
      '{"2":"web-c","0":"web-a","10":"web-k"}',
      [
        [2, 'web-c'],
        [0, 'web-a'],
        [10, 'web-k'],
      ],
    ],
    ['{"0":"db-0.shard"}', [[0, 'db-0.shard']]],
    // an escaped key is the same key
    ['{"\\u0031":"web-b"}', [[1, 'web-b']]],
  ];
  it.each(valid)('%j is a valid map', (raw, entries) => {
    const p = parseIdMap(raw);
    expect(p.problems).toEqual([]);
    expect(p.ok).toBe(true);
    expect([...p.map]).toEqual(entries);
  });

  const invalid: [string, string[]][] = [
    ['', ['it is not valid JSON (Unexpected end of JSON input)']],
    ['{"0":"a"', [expect.stringMatching(/^it is not valid JSON/)]],
    ['["a","b"]', ['it is JSON array, not an object {"<id>": "<pod name>"}']],
    ['null', ['it is JSON null, not an object {"<id>": "<pod name>"}']],
    ['"web-a"', ['it is JSON string, not an object {"<id>": "<pod name>"}']],
    ['{"01":"a"}', ['entry "01": the id must be a decimal integer >= 0 without leading zeros']],
    ['{"-1":"a"}', ['entry "-1": the id must be a decimal integer >= 0 without leading zeros']],
    ['{"1.5":"a"}', ['entry "1.5": the id must be a decimal integer >= 0 without leading zeros']],
    ['{" 1":"a"}', ['entry " 1": the id must be a decimal integer >= 0 without leading zeros']],
    ['{"x":"a"}', ['entry "x": the id must be a decimal integer >= 0 without leading zeros']],
    [
      '{"99999999999999999999":"a"}',
      ['entry "99999999999999999999": the id must be a decimal integer >= 0 without leading zeros'],
    ],
    ['{"0":3}', ['entry "0": the value must be a pod name, not 3']],
    ['{"0":""}', ['entry "0": the value must be a pod name, not ""']],
    ['{"0":"Web_A"}', ['entry "0": the value must be a pod name, not "Web_A"']],
    ['{"0":{"pod":"a"}}', ['entry "0": the value must be a pod name, not {"pod":"a"}']],
    ['{"0":null}', ['entry "0": the value must be a pod name, not null']],
    // JSON.parse keeps only the last of a repeated key: the text is read for them
    ['{"0":"a","0":"b"}', ['entry "0" is written 2 times: an id belongs to one pod']],
    ['{"0":"a","1":"a"}', ['pod "a" holds 2 ids (0, 1): a pod holds one']],
  ];
  it.each(invalid)('%j is reported, not used', (raw, problems) => {
    const p = parseIdMap(raw);
    expect(p.ok).toBe(false);
    expect(p.problems).toEqual(problems);
  });

  it('keeps every written entry, duplicates included, with its own value', () => {
    const p = parseIdMap('{"0":"a","1":{"x":[1,"}"]},"0":"b","2":"c,d"}');
    expect(p.entries).toEqual([
      { key: '0', id: 0, pod: 'a' },
      { key: '1', id: 1, pod: { x: [1, '}'] } },
      { key: '0', id: 0, pod: 'b' },
      { key: '2', id: 2, pod: 'c,d' },
    ]);
  });
});

describe('writing it', () => {
  it('writes ids ascending, compact, and reads back the same', () => {
    const m = new Map([
      [10, 'web-k'],
      [0, 'web-a'],
      [2, 'web-c'],
    ]);
    const text = serializeIdMap(m);
    expect(text).toBe('{"0":"web-a","2":"web-c","10":"web-k"}');
    expect([...parseIdMap(text).map].sort()).toEqual([...m].sort());
    expect(serializeIdMap(new Map())).toBe('{}');
  });

  it('finds the id a pod holds', () => {
    const m = new Map([
      [0, 'a'],
      [3, 'b'],
    ]);
    expect(idOf(m, 'b')).toBe(3);
    expect(idOf(m, 'c')).toBeUndefined();
  });
});
