import { describe, expect, it } from 'vitest';
import {
  checkSupportedFields,
  escapeFieldValue,
  type FieldRequirement,
  fieldSelectorToString,
  matchesFields,
  parseFieldSelector,
  SelectorError,
  unescapeFieldValue,
} from './fieldSelector.js';

const eq = (field: string, value: string): FieldRequirement => ({ field, operator: '=', value });
const ne = (field: string, value: string): FieldRequirement => ({ field, operator: '!=', value });

function parseError(s: string): string {
  try {
    parseFieldSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe('parseFieldSelector: valid input', () => {
  const cases: [string, FieldRequirement[]][] = [
    ['', []],
    [',', []],
    [',,', []],
    ['a=b', [eq('a', 'b')]],
    ['a==b', [eq('a', 'b')]],
    ['a!=b', [ne('a', 'b')]],
    ['metadata.name=foo', [eq('metadata.name', 'foo')]],
    ['spec.nodeName=', [eq('spec.nodeName', '')]],
    ['spec.nodeName!=', [ne('spec.nodeName', '')]],
    ['=b', [eq('', 'b')]],
    // Both sides empty: Go drops the term (it becomes "everything").
    ['=', []],
    ['==', []],
    ['!=', []],
    ['a=b,', [eq('a', 'b')]],
    [',a=b', [eq('a', 'b')]],
    // Terms come back sorted, as Go sorts them before parsing.
    ['z=1,a=2,m!=3', [eq('a', '2'), ne('m', '3'), eq('z', '1')]],
    ['a=1,a=2', [eq('a', '1'), eq('a', '2')]],
    // No whitespace trimming: spaces belong to the name or value.
    [' a = b ', [eq(' a ', ' b ')]],
    // The first operator wins: '!=' and '==' before '=' at each position.
    ['a!=b', [ne('a', 'b')]],
    ['a!b=c', [eq('a!b', 'c')]],
    ['a=!b', [eq('a', '!b')]],
    // Escapes in values.
    ['a=x\\,y', [eq('a', 'x,y')]],
    ['a=x\\=y', [eq('a', 'x=y')]],
    ['a=x\\\\y', [eq('a', 'x\\y')]],
    ['a=x\\\\,b=y', [eq('a', 'x\\'), eq('b', 'y')]],
    ['a=\\,\\=\\\\', [eq('a', ',=\\')]],
    ['a=é😀', [eq('a', 'é😀')]],
    ['a.b/c=d', [eq('a.b/c', 'd')]],
  ];
  it.each(cases)('%j', (input, expected) => {
    expect(parseFieldSelector(input)).toEqual(expected);
  });
});

describe('parseFieldSelector: errors', () => {
  const cases: [string, string][] = [
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a<b', "invalid selector: 'a<b'; can't understand 'a<b'"],
    ['a!b', "invalid selector: 'a!b'; can't understand 'a!b'"],
    // Errors are found in sorted term order: 'b' sorts before 'c'.
    ['c,b', "invalid selector: 'c,b'; can't understand 'b'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a==b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a===b', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b\\n', 'invalid field selector: invalid escape sequence: \\n'],
    ['a=\\😀', 'invalid field selector: invalid escape sequence: \\😀'],
    // A backslash in the name does not escape the operator.
    ['a\\=b=c', 'invalid field selector: unescaped character in value: 61'],
  ];
  it.each(cases)('%j', (input, message) => {
    expect(parseError(input)).toBe(message);
  });
});

describe('unescapeFieldValue / escapeFieldValue', () => {
  const pairs: [string, string][] = [
    ['', ''],
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['\\,=', '\\\\\\,\\='],
  ];
  it.each(pairs)('%j <-> %j', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(raw);
  });

  it('rejects a bare comma', () => {
    expect(() => unescapeFieldValue('a,b')).toThrow(
      new SelectorError('invalid field selector: unescaped character in value: 44'),
    );
  });
});

describe('matchesFields', () => {
  const fields = { 'metadata.name': 'web-1', 'metadata.namespace': 'default', 'spec.nodeName': '' };
  const cases: [string, boolean][] = [
    ['', true],
    ['metadata.name=web-1', true],
    ['metadata.name==web-1', true],
    ['metadata.name=web-2', false],
    ['metadata.name!=web-2', true],
    ['metadata.name!=web-1', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    // A missing field reads as the empty string.
    ['status.phase=', true],
    ['status.phase!=Running', true],
    ['status.phase=Running', false],
    ['metadata.name=web-1,metadata.namespace=default', true],
    ['metadata.name=web-1,metadata.namespace!=default', false],
    ['constructor=', true],
  ];
  it.each(cases)('%j -> %s', (selector, expected) => {
    expect(matchesFields(parseFieldSelector(selector), fields)).toBe(expected);
  });

  it('compares escaped values literally', () => {
    expect(matchesFields(parseFieldSelector('a=x\\,y'), { a: 'x,y' })).toBe(true);
    expect(matchesFields(parseFieldSelector('a=x\\,y'), { a: 'x\\,y' })).toBe(false);
  });
});

describe('checkSupportedFields', () => {
  const supported = ['metadata.name', 'metadata.namespace', 'spec.nodeName'];
  const cases: [string, string | null][] = [
    ['', null],
    ['metadata.name=a', null],
    ['metadata.name=a,spec.nodeName!=b', null],
    ['status.phase=Running', 'field label not supported: status.phase'],
    ['metadata.name=a,zeta=1,beta=2', 'field label not supported: beta'],
    [' metadata.name=a', 'field label not supported:  metadata.name'],
    ['=x', 'field label not supported: '],
  ];
  it.each(cases)('%j', (selector, message) => {
    const run = () => checkSupportedFields(parseFieldSelector(selector), supported);
    if (message === null) expect(run).not.toThrow();
    else expect(run).toThrow(new SelectorError(message));
  });

  it('throws a SelectorError', () => {
    expect(() => checkSupportedFields([eq('x', '1')], [])).toThrow(SelectorError);
  });
});

describe('fieldSelectorToString', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['b=2,a==1', 'a=1,b=2'],
    ['a!=x', 'a!=x'],
    ['a=x\\,y\\=z\\\\', 'a=x\\,y\\=z\\\\'],
  ];
  it.each(cases)('%j -> %j', (input, expected) => {
    const s = fieldSelectorToString(parseFieldSelector(input));
    expect(s).toBe(expected);
    expect(parseFieldSelector(s)).toEqual(parseFieldSelector(input));
  });
});
