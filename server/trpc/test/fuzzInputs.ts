// Hostile values for fuzzing the console's inputs (fast-check): strings at and past the limits,
// unicode, path-like names, values of the wrong type, prototype-pollution keys, deep nesting and
// numbers only raw JSON can carry (1e999 parses to Infinity). A generated value may hold Raw
// (JSON text put into the request verbatim) and ABSENT (a field left out; at the top: no input
// at all); jsonText() turns it into what goes over the wire.
import fc from 'fast-check';

/** JSON text sent exactly as written, e.g. 1e999 or 3000 nested arrays. */
export class Raw {
  constructor(readonly text: string) {}
  toString() {
    return this.text.length > 80
      ? `Raw(${this.text.slice(0, 40)}…${this.text.length} chars)`
      : `Raw(${this.text})`;
  }
  [fc.toStringMethod]() {
    return this.toString();
  }
}

/** A field left out (or, as the whole input, no input at all). */
export const ABSENT = Symbol('absent');

/** How big a value may get: URLs (queries) are far shorter than bodies (mutations). */
export interface Size {
  /** longest generated string */
  string: number;
  /** deepest generated nesting */
  depth: number;
}

export const QUERY_SIZE: Size = { string: 3_000, depth: 300 };
export const BODY_SIZE: Size = { string: 200_000, depth: 5_000 };

/** The text a value becomes on the wire; undefined: send no input at all. */
export function jsonText(v: unknown): string | undefined {
  if (v === ABSENT || v === undefined) return undefined;
  const raws: string[] = [];
  const text = JSON.stringify(v, (_k, x) => {
    if (x instanceof Raw) {
      raws.push(x.text);
      return `\u0000RAW${raws.length - 1}\u0000`;
    }
    return x === ABSENT ? undefined : x;
  });
  return text.replace(/"\\u0000RAW(\d+)\\u0000"/g, (_m, i) => raws[Number(i)]);
}

/** An object with these own keys, `__proto__` included as a plain key (as JSON.parse makes it). */
export function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

export const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'then',
];

/** Names that mean something in a URL path. */
export const PATH_STRINGS = [
  '.',
  '..',
  '../x',
  '../../api/v1/namespaces',
  './x',
  'a/b',
  '/',
  '\\',
  '%2F',
  '..%2F',
  '%2e%2e',
  '%',
  '%00',
  '?x=1',
  '#x',
  'a;b',
];

/** Names that mean something to a shell, a template, a parser or a person. */
export const SPECIAL_STRINGS = [
  '',
  ' ',
  'a b',
  '\u0000',
  '\n',
  '\t',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '0',
  '-1',
  ...PROTO_KEYS,
  '<script>alert(1)</script>',
  '{{7*7}}',
  '#{7*7}',
  "' OR '1'='1",
  '$(id)',
  '💥',
  'ǅ',
  'İ',
  '\u202eevil',
  '\ufeff',
  '\ud800',
  'x'.repeat(253),
  'x'.repeat(254),
  'ä'.repeat(127),
  'Web-0',
  ' web-0',
];

export const RAW_NUMBERS = [
  '1e999',
  '-1e999',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
  '0.5',
  '1E2',
];

/** Nested n deep, as raw text (JSON.stringify would recurse in the test). */
export const nestedObject = (n: number) => new Raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
export const nestedArray = (n: number) => new Raw(`${'['.repeat(n)}${']'.repeat(n)}`);

export function hostileString(size: Size): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...PATH_STRINGS) },
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 254, max: size.string }), fc.constantFrom('x', 'a-', '.', '/'))
        .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)),
    },
  );
}

/** A value of some other type than a field wants. */
export function wrongTyped(size: Size): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant([]),
    fc.constant({}),
    fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    fc.constantFrom(...RAW_NUMBERS).map((t) => new Raw(t)),
    fc.integer({ min: 2, max: size.depth }).map(nestedObject),
    fc.integer({ min: 2, max: size.depth }).map(nestedArray),
  );
}

/** Usually a valid value; often a hostile string, sometimes another type, sometimes left out. */
export function field<T>(valid: fc.Arbitrary<T>, size: Size): fc.Arbitrary<T | string | unknown> {
  return fc.oneof(
    { weight: 14, arbitrary: valid },
    { weight: 4, arbitrary: hostileString(size) },
    { weight: 2, arbitrary: wrongTyped(size) },
    { weight: 1, arbitrary: fc.constant(ABSENT) },
  );
}

/** Extra keys for an object: prototype-pollution keys (carrying a marker), junk, nesting. */
export function extraKeys(size: Size): fc.Arbitrary<[string, unknown][]> {
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...PROTO_KEYS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  );
  const value = fc.oneof(
    fc.constant({ polluted: 'yes', isAdmin: true }),
    fc.constant({ prototype: { polluted: 'yes' } }),
    fc.jsonValue({ maxDepth: 2 }),
    wrongTyped(size),
  );
  return fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 3 });
}

/** An input object built from fields, sometimes with extra keys. */
export function objectInput(
  fields: Record<string, fc.Arbitrary<unknown>>,
  size: Size,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.record(fields),
      fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extraKeys(size) }),
    )
    .map(([base, extra]) => objectOf([...Object.entries(base), ...extra]));
}

/** The whole input: usually built from fields, sometimes anything at all. */
export function anyInput(shaped: fc.Arbitrary<unknown>, size: Size): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 16, arbitrary: shaped },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: wrongTyped(size) },
    { weight: 1, arbitrary: hostileString(size) },
    { weight: 1, arbitrary: fc.constant(ABSENT) },
    { weight: 1, arbitrary: extraKeys(size).map(objectOf) },
  );
}

/** fast-check's report, cut short: counterexamples may hold strings of 200 000 characters. */
export function reporter<T>(out: fc.RunDetails<T>) {
  if (!out.failed) return;
  const cut = (t: string) =>
    t.replace(
      /(.{1,6}?)\1{40,}/g,
      (run, unit) => `${unit.repeat(4)}…(${run.length} chars of ${JSON.stringify(unit)})…`,
    );
  const cause = out.errorInstance instanceof Error ? `\n\nCaused by: ${out.errorInstance.message}` : '';
  throw new Error(cut(`${fc.defaultReportMessage(out) ?? 'property failed'}${cause}`));
}

// ---- how many cases: npm test's default, the nightly size ---------------------------------

/** FUZZ_SEED=<n> replays a run: every property of a file starts from it. */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

/**
 * The cases one boundary gets: its default in `npm test` times FUZZ_RUNS (default 1), and at
 * least FUZZ_CASES (`npm run fuzz` sets 10 000: the nightly size).
 */
export function fuzzCases(defaultCases: number): number {
  const runs = Number(process.env.FUZZ_RUNS ?? 1);
  const atLeast = Number(process.env.FUZZ_CASES ?? 0);
  return Math.max(Math.round(defaultCases * runs), atLeast);
}

/** A test's time limit for `cases` cases of about `msPerCase` each (at least a minute). */
export function fuzzTimeout(cases: number, msPerCase: number): number {
  return Math.max(60_000, Math.round(cases * msPerCase));
}

/**
 * One line per boundary fuzzed — its name, its cases and how long they took — which
 * `npm run fuzz` (scripts/fuzz.sh) collects into its table. Printed once the property held.
 */
export function fuzzReport(boundary: string, cases: number, ms: number, note = '') {
  console.log(
    `fuzz-boundary: ${boundary} | ${cases} cases | ${(ms / 1000).toFixed(1)} s${note ? ` | ${note}` : ''}`,
  );
}
