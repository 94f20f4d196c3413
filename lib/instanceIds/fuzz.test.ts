// Property-based fuzzing (fast-check) of the instance-ID map annotation as the endpoint and the
// collector read it (parseIdMap, then decideAcquire / decideRelease / decideCollect): any text
// at all — valid maps, repeated keys, ids with leading zeros or past 2^53, values of every type,
// nesting, escapes, garbage, a quarter of a megabyte — is read or reported, never a throw; the
// hand-written scan of repeated keys sees exactly the keys JSON.parse sees; a map with a problem
// is never rewritten; and what is written back never gives one pod two ids, one id two pods, or
// an id outside [0, replicas). FUZZ_SEED replays; FUZZ_CASES/FUZZ_RUNS scale.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  hostileString,
  QUERY_SIZE,
  reporter,
} from '../../server/trpc/test/fuzzInputs.js';
import type { StopVerdict } from '../guard/stopped.js';
import { decideAcquire, decideCollect, decideRelease } from './decide.js';
import { parseIdMap } from './map.js';

const pod = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('web-0', 'web-1', 'web-2', 'api-7f9c-x2', 'a.b') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/) },
);
const key = fc.oneof(
  { weight: 6, arbitrary: fc.nat(8).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '01',
      '-1',
      '1e3',
      '1.0',
      ' 1',
      '',
      '9007199254740993',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 1, arbitrary: hostileString(QUERY_SIZE) },
);
const value = fc.oneof(
  { weight: 8, arbitrary: pod },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: hostileString(QUERY_SIZE) },
);
/** JSON object text written entry by entry, so a key may appear twice, with odd spacing. */
const objectText = fc
  .tuple(fc.array(fc.tuple(key, value), { maxLength: 10 }), fc.constantFrom('', ' ', '\n\t'))
  .map(
    ([entries, ws]) =>
      `{${ws}${entries.map(([k, v]) => `${JSON.stringify(k)}${ws}:${ws}${JSON.stringify(v)}`).join(`,${ws}`)}${ws}}`,
  );
const text = fc.oneof(
  { weight: 10, arbitrary: objectText },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{}', '[]', 'null', '{"0":"web-0",}', '{"0":"web-0"}x') },
  {
    weight: 1,
    // big: thousands of entries, near the annotations' 256 KiB limit
    arbitrary: fc
      .integer({ min: 1_000, max: 12_000 })
      .map((n) => `{${Array.from({ length: n }, (_, i) => `"${i}":"pod-${i}"`).join(',')}}`),
  },
);

const replicas = fc.oneof(fc.nat(6), fc.constantFrom(0, 1, 2 ** 31 - 1, 12_001));

/** The valid map a text is read as: every id once, every pod once, within the replicas. */
function checkWritten(next: string, max: number) {
  const r = parseIdMap(next);
  expect(r.problems).toEqual([]);
  const pods = [...r.map.values()];
  expect(new Set(pods).size).toBe(pods.length);
  for (const id of r.map.keys()) expect(id).toBeLessThan(Math.max(max, 1));
  return r.map;
}

describe('fuzzing the instance-ID map annotation (fast-check)', () => {
  const cases = fuzzCases(300);

  it(
    'any text: read or reported, never a throw; repeated keys seen as JSON.parse sees them',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(fc.option(text, { nil: undefined }), (raw) => {
          const r = parseIdMap(raw);
          expect(r.ok).toBe(r.problems.length === 0);
          let value: unknown;
          try {
            value = raw === undefined ? {} : JSON.parse(raw);
          } catch {
            return void expect(r.ok).toBe(false);
          }
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
          expect(new Set(r.entries.map((e) => e.key))).toEqual(new Set(Object.keys(value)));
          if (r.ok) expect(r.entries.length).toBe(r.map.size);
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('instance-ID map: any text (parseIdMap)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 60),
  );

  it(
    'acquire, release and collect: never a throw, never a map rewritten unread, never an id held twice',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(
          fc.option(text, { nil: undefined }),
          replicas,
          pod,
          fc.option(fc.uniqueArray(fc.tuple(pod, fc.boolean()), { selector: (t) => t[0], maxLength: 5 }), {
            nil: undefined,
          }),
          (raw, n, who, verdictList) => {
            // each pod the holders name: stopped for sure, or still running (lib/guard/stopped.ts)
            const holders =
              verdictList &&
              new Map<string, StopVerdict>(
                verdictList.map(([p, gone]) => [
                  p,
                  gone
                    ? { stopped: true, reason: 'removed-by-kubelet', text: p }
                    : { stopped: false, reason: 'running', text: p },
                ]),
              );
            const readable = parseIdMap(raw).ok;
            const a = decideAcquire({ raw, replicas: n, pod: who, holders });
            const r = decideRelease({ raw, replicas: n, pod: who });
            const c = decideCollect({ raw, holders: holders ?? new Map() });
            if (!readable) {
              for (const d of [a, r, c]) expect(d.kind).toBe('invalid');
              return;
            }
            if (a.kind === 'assigned' || a.kind === 'held') {
              expect(a.id).toBeLessThan(n);
              const next = a.next === undefined ? parseIdMap(raw).map : checkWritten(a.next, n);
              expect(next.get(a.id)).toBe(who);
            }
            // an id is taken from its holder only once that holder stopped for sure
            if (a.kind === 'assigned')
              for (const d of a.dropped) expect(holders?.get(d.pod)?.stopped).toBe(true);
            if (r.kind === 'released')
              expect([...checkWritten(r.next, Number.MAX_SAFE_INTEGER).values()]).not.toContain(who);
            if (c.kind === 'collected') {
              const kept = checkWritten(c.next, Number.MAX_SAFE_INTEGER);
              for (const p of kept.values()) expect(holders?.get(p)?.stopped).not.toBe(true);
              for (const d of c.dropped) expect(holders?.get(d.pod)?.stopped).toBe(true);
            }
          },
        ),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('instance-ID map: acquire/release/collect decisions', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 60),
  );
});
