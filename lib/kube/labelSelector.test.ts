import { describe, expect, it } from 'vitest';
import {
  byteOrderCompare,
  goQuote,
  type LabelRequirement,
  type LabelSelector,
  labelKeyErrors,
  labelSelectorAsRequirements,
  labelSelectorMatches,
  labelSelectorToString,
  labelValueErrors,
  matchesRequirements,
  parseLabelSelector,
  requirementsToString,
  SelectorError,
  validateLabelSelector,
} from './labelSelector.js';

const NAME_PART_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const PREFIX_REGEX =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const BINARY_OPS = 'in, notin, =, ==, !=, gt, lt';

const req = (
  key: string,
  operator: LabelRequirement['operator'],
  values: string[] = [],
): LabelRequirement => ({
  key,
  operator,
  values,
});

function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe('parseLabelSelector: valid input', () => {
  const cases: [string, LabelRequirement[]][] = [
    ['', []],
    ['   ', []],
    [' \t\r\n', []],
    ['x', [req('x', 'Exists')]],
    ['!x', [req('x', 'DoesNotExist')]],
    ['! x', [req('x', 'DoesNotExist')]],
    ['x=a', [req('x', 'Equals', ['a'])]],
    ['x==a', [req('x', 'DoubleEquals', ['a'])]],
    ['x!=a', [req('x', 'NotEquals', ['a'])]],
    ['x>1', [req('x', 'GreaterThan', ['1'])]],
    ['x<1', [req('x', 'LessThan', ['1'])]],
    ['x > 10', [req('x', 'GreaterThan', ['10'])]],
    ['x in (a)', [req('x', 'In', ['a'])]],
    ['x notin (a)', [req('x', 'NotIn', ['a'])]],
    ['x in(a)', [req('x', 'In', ['a'])]],
    ['x in (b,a,b)', [req('x', 'In', ['a', 'b'])]],
    ['x in ( a , b )', [req('x', 'In', ['a', 'b'])]],
    ['x in ()', [req('x', 'In', [''])]],
    ['x in (,)', [req('x', 'In', [''])]],
    ['x in (,a)', [req('x', 'In', ['', 'a'])]],
    ['x in (a,)', [req('x', 'In', ['', 'a'])]],
    ['x in (a,,b)', [req('x', 'In', ['', 'a', 'b'])]],
    ['x in (a,,,b)', [req('x', 'In', ['', 'a', 'b'])]],
    ['x=', [req('x', 'Equals', [''])]],
    ['x==,y', [req('x', 'DoubleEquals', ['']), req('y', 'Exists')]],
    ['x!=', [req('x', 'NotEquals', [''])]],
    ['x = a', [req('x', 'Equals', ['a'])]],
    ['  x=a  ,  y  ', [req('x', 'Equals', ['a']), req('y', 'Exists')]],
    ['x=a\t,\ny', [req('x', 'Equals', ['a']), req('y', 'Exists')]],
    ['b=1,a=2', [req('a', 'Equals', ['2']), req('b', 'Equals', ['1'])]],
    ['x=b,x=a', [req('x', 'Equals', ['b']), req('x', 'Equals', ['a'])]],
    [
      'a,!b,c in (1),d notin (2),e=3,f==4,g!=5,h>6,i<7',
      [
        req('a', 'Exists'),
        req('b', 'DoesNotExist'),
        req('c', 'In', ['1']),
        req('d', 'NotIn', ['2']),
        req('e', 'Equals', ['3']),
        req('f', 'DoubleEquals', ['4']),
        req('g', 'NotEquals', ['5']),
        req('h', 'GreaterThan', ['6']),
        req('i', 'LessThan', ['7']),
      ],
    ],
    // 'in' and 'notin' are ordinary words where a key or value is expected.
    ['in', [req('in', 'Exists')]],
    ['notin', [req('notin', 'Exists')]],
    ['in in (in,notin)', [req('in', 'In', ['in', 'notin'])]],
    ['x=in', [req('x', 'Equals', ['in'])]],
    ['!in', [req('in', 'DoesNotExist')]],
    ['x,in', [req('in', 'Exists'), req('x', 'Exists')]],
    // Object-prototype names are plain identifiers.
    ['constructor=toString', [req('constructor', 'Equals', ['toString'])]],
    ['example.com/app=web', [req('example.com/app', 'Equals', ['web'])]],
    ['app.kubernetes.io/name in (a-b,c_d,e.f)', [req('app.kubernetes.io/name', 'In', ['a-b', 'c_d', 'e.f'])]],
    [`${'k'.repeat(63)}=${'v'.repeat(63)}`, [req('k'.repeat(63), 'Equals', ['v'.repeat(63)])]],
    [`${'p'.repeat(253)}/k`, [req(`${'p'.repeat(253)}/k`, 'Exists')]],
    ['x>9223372036854775807', [req('x', 'GreaterThan', ['9223372036854775807'])]],
    // Go's lexer treats a NUL character as end of input when a token starts there.
    ['x \0garbage', [req('x', 'Exists')]],
  ];
  it.each(cases)('%j', (input, expected) => {
    expect(parseLabelSelector(input)).toEqual(expected);
  });
});

describe('parseLabelSelector: syntax errors', () => {
  const cases: [string, string][] = [
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['(x)', "found '(', expected: !, identifier, or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['x,=y', "found '=', expected: identifier after ','"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x=a=b', "found '=', expected: ',' or 'end of string'"],
    ['x in (a) b', "found 'b', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['!x in (a)', "found 'in', expected: ',' or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['!=x', "found '!=', expected: !, identifier, or 'end of string'"],
    ['x y', `unable to parse requirement: found 'y', expected: ${BINARY_OPS}`],
    ['x !y', `unable to parse requirement: found '!', expected: ${BINARY_OPS}`],
    ['x (a)', `unable to parse requirement: found '(', expected: ${BINARY_OPS}`],
    ['x>=1', "unable to parse requirement: found '=', expected: identifier"],
    ['x<=1', "unable to parse requirement: found '=', expected: identifier"],
    ['x===a', "unable to parse requirement: found '=', expected: identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x in', "unable to parse requirement: found '' expected: '('"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x notin', "unable to parse requirement: found '' expected: '('"],
    ['x in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x in ((a))', "unable to parse requirement: found '(', expected: ',', ')' or identifier"],
  ];
  it.each(cases)('%j', (input, message) => {
    expect(parseError(input)).toBe(message);
  });
});

describe('parseLabelSelector: invalid keys and values', () => {
  const cases: [string, string][] = [
    ['app:web', `unable to parse requirement: <nil>: Invalid value: "app:web": ${NAME_PART_REGEX}`],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": ${NAME_PART_REGEX}`],
    ['x-', `unable to parse requirement: <nil>: Invalid value: "x-": ${NAME_PART_REGEX}`],
    ['!*bar', `unable to parse requirement: <nil>: Invalid value: "*bar": ${NAME_PART_REGEX}`],
    ['/x', 'unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty'],
    [
      'x/',
      `unable to parse requirement: <nil>: Invalid value: "x/": name part must be non-empty; ${NAME_PART_REGEX}`,
    ],
    [
      'Example.com/x=1',
      `unable to parse requirement: <nil>: Invalid value: "Example.com/x": ${PREFIX_REGEX}`,
    ],
    [
      'a/b/c',
      "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
    [
      'k'.repeat(64),
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    ],
    [
      `${'p'.repeat(254)}/k`,
      `unable to parse requirement: <nil>: Invalid value: "${'p'.repeat(254)}/k": prefix part must be no more than 253 characters`,
    ],
    // Quoting follows Go's %q.
    ['x\u00a0y', `unable to parse requirement: <nil>: Invalid value: "x\\u00a0y": ${NAME_PART_REGEX}`],
    ['x\vy', `unable to parse requirement: <nil>: Invalid value: "x\\vy": ${NAME_PART_REGEX}`],
    ['x"y', `unable to parse requirement: <nil>: Invalid value: "x\\"y": ${NAME_PART_REGEX}`],
    ['x=-a', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${VALUE_REGEX}`],
    ['x=a:b', `unable to parse requirement: values[0][x]: Invalid value: "a:b": ${VALUE_REGEX}`],
    [
      `x=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    ],
    [
      'x in (ok,-a,b-)',
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${VALUE_REGEX}, values[1][x]: Invalid value: "b-": ${VALUE_REGEX}]`,
    ],
    [
      'x>a',
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x<',
      `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x>1.5',
      `unable to parse requirement: values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x>9223372036854775808',
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    // A negative bound parses as an integer but is not a valid label value.
    ['x>-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${VALUE_REGEX}`],
  ];
  it.each(cases)('%j', (input, message) => {
    expect(parseError(input)).toBe(message);
  });
});

describe('matchesRequirements', () => {
  const labels = { app: 'web', tier: 'front', n: '10', neg: '-3', empty: '' };
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', labels, true],
    ['', undefined, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['empty', labels, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['missing=web', labels, false],
    ['empty=', labels, true],
    ['missing=', labels, false],
    ['app!=db', labels, true],
    ['app!=web', labels, false],
    ['missing!=web', labels, true],
    ['app in (db,web)', labels, true],
    ['app in (db)', labels, false],
    ['missing in (web)', labels, false],
    ['empty in ()', labels, true],
    ['app notin (db)', labels, true],
    ['app notin (web,db)', labels, false],
    ['missing notin (web)', labels, true],
    ['n>9', labels, true],
    ['n>10', labels, false],
    ['n<11', labels, true],
    ['n<10', labels, false],
    ['neg<0', labels, true],
    ['app>0', labels, false],
    ['app<0', labels, false],
    ['missing>0', labels, false],
    ['missing<100', labels, false],
    ['app=web,tier=front', labels, true],
    ['app=web,tier=back', labels, false],
    ['app=web', undefined, false],
    ['!app', undefined, true],
    ['app', {}, false],
    ['toString', {}, false],
    ['!constructor', {}, true],
  ];
  it.each(cases)('%j on %j -> %s', (selector, set, expected) => {
    expect(matchesRequirements(parseLabelSelector(selector), set)).toBe(expected);
  });

  it('compares integers beyond Number precision exactly', () => {
    const reqs = [req('x', 'GreaterThan', ['9007199254740992'])];
    expect(matchesRequirements(reqs, { x: '9007199254740993' })).toBe(true);
    expect(matchesRequirements(reqs, { x: '9007199254740992' })).toBe(false);
  });

  it('never matches label values that are not int64', () => {
    expect(matchesRequirements([req('x', 'LessThan', ['5'])], { x: '99999999999999999999' })).toBe(false);
    expect(matchesRequirements([req('x', 'LessThan', ['5'])], { x: '+4' })).toBe(true);
  });

  it('treats malformed requirements as non-matching', () => {
    expect(matchesRequirements([req('x', 'GreaterThan', [])], { x: '5' })).toBe(false);
    expect(matchesRequirements([req('x', 'GreaterThan', ['a'])], { x: '5' })).toBe(false);
    expect(matchesRequirements([{ key: 'x', operator: 'Bogus' as 'In', values: [] }], { x: '5' })).toBe(
      false,
    );
  });
});

describe('requirementsToString', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['x', 'x'],
    ['!x', '!x'],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x>1', 'x>1'],
    ['x<1', 'x<1'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in ()', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    [' b , a = 1 ', 'a=1,b'],
  ];
  it.each(cases)('%j -> %j', (input, expected) => {
    expect(requirementsToString(parseLabelSelector(input))).toBe(expected);
  });

  it('round-trips through the parser', () => {
    const s = 'a,!b,c in (1,2),d notin (3),e=4,f==5,g!=6,h>7,i<8';
    expect(parseLabelSelector(requirementsToString(parseLabelSelector(s)))).toEqual(parseLabelSelector(s));
  });
});

describe('labelSelectorAsRequirements', () => {
  const cases: [string, LabelSelector | null | undefined, LabelRequirement[] | null][] = [
    ['null is Nothing', null, null],
    ['undefined is Nothing', undefined, null],
    ['empty is Everything', {}, []],
    ['empty parts are Everything', { matchLabels: {}, matchExpressions: [] }, []],
    ['null parts are Everything', { matchLabels: null, matchExpressions: null }, []],
    [
      'matchLabels become Equals',
      { matchLabels: { b: '2', a: '1' } },
      [req('a', 'Equals', ['1']), req('b', 'Equals', ['2'])],
    ],
    [
      'expressions, sorted by key with labels',
      {
        matchLabels: { m: 'x' },
        matchExpressions: [
          { key: 'z', operator: 'In', values: ['b', 'a'] },
          { key: 'a', operator: 'NotIn', values: ['c'] },
          { key: 'e', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist', values: [] },
        ],
      },
      [
        req('a', 'NotIn', ['c']),
        req('d', 'DoesNotExist'),
        req('e', 'Exists'),
        req('m', 'Equals', ['x']),
        req('z', 'In', ['b', 'a']),
      ],
    ],
  ];
  it.each(cases)('%s', (_name, sel, expected) => {
    expect(labelSelectorAsRequirements(sel)).toEqual(expected);
  });

  const errors: [string, LabelSelector, string][] = [
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      '"Equals" is not a valid label selector operator',
    ],
    [
      'lower-case operator',
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
      '"in" is not a valid label selector operator',
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'NotIn with values omitted',
      { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', '<y>'] }] },
      `[values: Invalid value: ["x","\\u003cy\\u003e"]: values set must be empty for exists and does not exist, values[1][a]: Invalid value: "<y>": ${VALUE_REGEX}]`,
    ],
    [
      'bad key',
      { matchExpressions: [{ key: 'a b', operator: 'Exists' }] },
      `key: Invalid value: "a b": ${NAME_PART_REGEX}`,
    ],
    [
      'bad matchLabels value',
      { matchLabels: { a: 'x y' } },
      `values[0][a]: Invalid value: "x y": ${VALUE_REGEX}`,
    ],
  ];
  it.each(errors)('rejects %s', (_name, sel, message) => {
    expect(() => labelSelectorAsRequirements(sel)).toThrow(new SelectorError(message));
  });
});

describe('labelSelectorMatches', () => {
  const labels = { app: 'web', tier: 'front' };
  const cases: [string, LabelSelector | null | undefined, Record<string, string> | undefined, boolean][] = [
    ['null matches nothing', null, labels, false],
    ['undefined matches nothing', undefined, labels, false],
    ['empty matches everything', {}, labels, true],
    ['empty matches unlabelled objects', {}, undefined, true],
    ['matchLabels hit', { matchLabels: { app: 'web' } }, labels, true],
    ['matchLabels miss', { matchLabels: { app: 'db' } }, labels, false],
    ['matchLabels all required', { matchLabels: { app: 'web', tier: 'back' } }, labels, false],
    ['matchLabels on unlabelled object', { matchLabels: { app: 'web' } }, undefined, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, labels, true],
    ['In miss', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, labels, false],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] }, labels, true],
    [
      'NotIn absent key',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      labels,
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels, true],
    ['Exists miss', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels, true],
    ['DoesNotExist miss', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, labels, false],
    [
      'labels and expressions ANDed',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      labels,
      false,
    ],
    [
      'invalid selector matches nothing',
      { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      labels,
      false,
    ],
    ['invalid In matches nothing', { matchExpressions: [{ key: 'zone', operator: 'NotIn' }] }, labels, false],
  ];
  it.each(cases)('%s', (_name, sel, set, expected) => {
    expect(labelSelectorMatches(sel, set)).toBe(expected);
  });

  it('nilMatches makes an absent selector match everything', () => {
    expect(labelSelectorMatches(null, labels, { nilMatches: true })).toBe(true);
    expect(labelSelectorMatches(undefined, undefined, { nilMatches: true })).toBe(true);
    expect(labelSelectorMatches(null, labels, { nilMatches: false })).toBe(false);
    // An empty selector is unaffected by the option.
    expect(labelSelectorMatches({ matchLabels: { app: 'db' } }, labels, { nilMatches: true })).toBe(false);
  });
});

describe('labelSelectorToString', () => {
  const cases: [string, LabelSelector | null | undefined, string][] = [
    ['null', null, '<none>'],
    ['undefined', undefined, '<none>'],
    ['empty', {}, '<none>'],
    ['matchLabels', { matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [
      'all operators',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'back'] },
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'zone', operator: 'Exists' },
        ],
      },
      'app=web,!canary,env notin (prod),tier in (back,front),zone',
    ],
    ['invalid', { matchExpressions: [{ key: 'a', operator: 'Bad' }] }, '<error>'],
    ['invalid key', { matchLabels: { 'a b': 'c' } }, '<error>'],
  ];
  it.each(cases)('%s', (_name, sel, expected) => {
    expect(labelSelectorToString(sel)).toBe(expected);
  });

  it('produces a string the parser accepts with the same meaning', () => {
    const sel: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
    };
    const reqs = parseLabelSelector(labelSelectorToString(sel));
    expect(matchesRequirements(reqs, { app: 'web', tier: 'b' })).toBe(true);
    expect(matchesRequirements(reqs, { app: 'web', tier: 'c' })).toBe(false);
  });
});

describe('validateLabelSelector', () => {
  const cases: [string, unknown, string | undefined, string[]][] = [
    ['null', null, undefined, []],
    ['undefined', undefined, undefined, []],
    ['empty', {}, undefined, []],
    [
      'valid',
      {
        matchLabels: { app: 'web', 'example.com/x': '' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['1'] },
          { key: 'b', operator: 'NotIn', values: ['2', '3'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist', values: [] },
        ],
      },
      'spec.selector',
      [],
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      'spec.selector',
      [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'NotIn with empty values',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      undefined,
      ["matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'spec.selector',
      [
        "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    ],
    [
      'DoesNotExist with values',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      undefined,
      [
        "matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    ],
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      'spec.selector',
      ['spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'],
    ],
    [
      'missing operator and key',
      { matchExpressions: [{}] },
      undefined,
      [
        'matchExpressions[0].operator: Invalid value: "": not a valid selector operator',
        'matchExpressions[0].key: Invalid value: "": name part must be non-empty',
        `matchExpressions[0].key: Invalid value: "": ${NAME_PART_REGEX}`,
      ],
    ],
    [
      'bad key and values, second expression',
      {
        matchExpressions: [
          { key: 'ok', operator: 'Exists' },
          { key: '-a', operator: 'In', values: ['ok', '-v'] },
        ],
      },
      'spec.selector',
      [
        `spec.selector.matchExpressions[1].key: Invalid value: "-a": ${NAME_PART_REGEX}`,
        `spec.selector.matchExpressions[1].values[1]: Invalid value: "-v": ${VALUE_REGEX}`,
      ],
    ],
    [
      'bad matchLabels',
      { matchLabels: { 'b-': 'ok', a: 'x'.repeat(64) } },
      'spec.selector',
      [
        'spec.selector.matchLabels: Invalid value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": must be no more than 63 characters',
        `spec.selector.matchLabels: Invalid value: "b-": ${NAME_PART_REGEX}`,
      ],
    ],
    [
      'not an object',
      'app=web',
      'spec.selector',
      ['spec.selector: Invalid value: "app=web": must be an object'],
    ],
    ['array', [], undefined, ['<nil>: Invalid value: []: must be an object']],
    [
      'matchLabels not an object',
      { matchLabels: ['a'] },
      undefined,
      ['matchLabels: Invalid value: ["a"]: must be an object'],
    ],
    [
      'matchLabels value not a string',
      { matchLabels: { a: 1 } },
      undefined,
      ['matchLabels[a]: Invalid value: 1: must be a string'],
    ],
    [
      'matchExpressions not an array',
      { matchExpressions: {} },
      undefined,
      ['matchExpressions: Invalid value: {}: must be an array'],
    ],
    [
      'expression not an object',
      { matchExpressions: ['a'] },
      undefined,
      ['matchExpressions[0]: Invalid value: "a": must be an object'],
    ],
    [
      'non-string fields',
      { matchExpressions: [{ key: 1, operator: 2, values: [3] }] },
      undefined,
      [
        'matchExpressions[0].operator: Invalid value: 2: must be a string',
        'matchExpressions[0].key: Invalid value: 1: must be a string',
        'matchExpressions[0].values[0]: Invalid value: 3: must be a string',
      ],
    ],
  ];
  it.each(cases)('%s', (_name, sel, path, expected) => {
    expect(validateLabelSelector(sel, path)).toEqual(expected);
  });
});

describe('label key and value validation', () => {
  const keys: [string, number][] = [
    ['a', 0],
    ['A.b-c_d', 0],
    ['1', 0],
    ['example.com/Name', 0],
    ['a.b.c/x', 0],
    ['', 2],
    ['_a', 1],
    ['a..b', 0],
    ['ex_ample.com/a', 1],
    ['-ex.com/a', 1],
    ['/', 3],
  ];
  it.each(keys)('key %j has %i errors', (key, count) => {
    expect(labelKeyErrors(key)).toHaveLength(count);
  });

  const values: [string, number][] = [
    ['', 0],
    ['a', 0],
    ['A-b_c.d', 0],
    ['-a', 1],
    ['a b', 1],
    ['v'.repeat(63), 0],
    ['v'.repeat(64), 1],
    ['é', 1],
    ['é'.repeat(32), 2], // 64 bytes: Go counts UTF-8 bytes
  ];
  it.each(values)('value %j has %i errors', (value, count) => {
    expect(labelValueErrors(value)).toHaveLength(count);
  });
});

describe('helpers', () => {
  it.each([
    ['plain', '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\n\t\x07\x01\x7f', '"\\n\\t\\a\\x01\\x7f"'],
    ['é😀', '"é😀"'],
    ['\u2028', '"\\u2028"'],
  ])('goQuote(%j) = %s', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });

  it('byteOrderCompare sorts by code point like Go', () => {
    expect(['b', 'a', '\uffff', '😀', 'B'].sort(byteOrderCompare)).toEqual(['B', 'a', 'b', '\uffff', '😀']);
    expect(byteOrderCompare('a', 'ab')).toBeLessThan(0);
    expect(byteOrderCompare('ab', 'a')).toBeGreaterThan(0);
    expect(byteOrderCompare('ab', 'ab')).toBe(0);
  });

  it('SelectorError is an Error with a name', () => {
    const e = new SelectorError('x');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('SelectorError');
  });
});
