// Property-based fuzzing (fast-check) of how deletion protection reads a PodProtector — the
// webhook's store, the aggregator and the generator all parse it with parseProtector, then
// judge deletions (evaluateBatch) and write a status back (statusOf). Any JSON at all must be
// read or refused naming a field, never throw; every object the CRD's schema admits
// (server/test/fuzzCrd.ts builds them from deploy/crds/) must be read — a protector the API
// server accepted but Palisade dropped would protect nothing; and on every such object the
// quota never admits a deletion past the floor its status and spec state, and the status
// Palisade writes back is one the schema admits. FUZZ_SEED replays; FUZZ_CASES/FUZZ_RUNS scale.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crdValidator } from '../../server/test/crdValidator.js';
import { crdSchema, crdObject, metadataOf, PROTECTOR_CRD } from '../../server/test/fuzzCrd.js';
import {
  anyInput,
  BODY_SIZE,
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  jsonText,
  reporter,
  type Size,
} from '../../server/trpc/test/fuzzInputs.js';
import { type AdmitRequest, type BatchRequest, evaluateBatch } from './batch.js';
import { cellsOf, historyConfig, statusOf, summarize, totalLag } from './status.js';
import { API_VERSION, CRITERIA, type PodProtector, parseProtector } from './types.js';

const SIZE: Size = { string: 2_000, depth: 50 };
const schema = crdSchema(PROTECTOR_CRD);
const admitted = crdValidator(schema);
const protectors = crdObject(schema, API_VERSION, 'PodProtector', {
  size: SIZE,
  metadata: metadataOf('shop', SIZE),
});
const NOW = Date.parse('2026-06-01T12:00:00Z');

/** JSON as the informer hands it over: what the wire text parses to. */
const asRead = (v: unknown) => {
  const t = jsonText(v);
  return t === undefined ? undefined : JSON.parse(t);
};

const requests = (cells: string[]): fc.Arbitrary<BatchRequest[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: admitRequest(cells) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('release' as const),
          cellId: fc.constantFrom(...cells),
          podUid: fc.constantFrom('p0', 'p1', 'p2'),
          at: fc.integer({ min: NOW - 60_000, max: NOW }),
        }),
      },
    ),
    { maxLength: 12 },
  );

function admitRequest(cells: string[]): fc.Arbitrary<AdmitRequest> {
  return fc.record({
    kind: fc.constant('admit' as const),
    cellId: fc.constantFrom(...cells),
    podUid: fc.oneof(fc.constantFrom('p0', 'p1', 'p2'), fc.uuid()),
    podName: fc.constantFrom('web-0', 'web-1', ''),
    at: fc.integer({ min: NOW - 60_000, max: NOW }),
    dryRun: fc.boolean(),
    criterion: fc.constantFrom(...CRITERIA),
    health: fc.record({
      scheduled: fc.boolean(),
      running: fc.boolean(),
      ready: fc.boolean(),
      available: fc.boolean(),
    }),
  });
}

const countFor = (s: ReturnType<typeof summarize>, c: (typeof CRITERIA)[number]) =>
  c === 'Available'
    ? s.aggregatedAvailableReplicas
    : c === 'Ready'
      ? s.aggregatedReady
      : c === 'Running'
        ? s.aggregatedRunning
        : s.aggregatedScheduled;

describe('fuzzing the PodProtector reads (fast-check)', () => {
  const cases = fuzzCases(300);

  it(
    'any JSON: read or refused naming a field, never a throw',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(anyInput(protectors, BODY_SIZE), (raw) => {
          const r = parseProtector(asRead(raw));
          if (!r.ok) expect(r.error).toMatch(/^[^:]+: /);
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('PodProtector: any JSON (parseProtector)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 30),
  );

  it(
    'the generator makes only objects the CRD admits, and Palisade reads every one of them',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(protectors, (p) => {
          expect(admitted(p)).toBeUndefined();
          const r = parseProtector(asRead(p));
          expect(
            r.ok ? '' : r.error,
            'a protector the API server accepts is dropped: it protects nothing',
          ).toBe('');
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('PodProtector: schema-valid (read, never dropped)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 30),
  );

  it(
    'on every object the CRD admits: no deletion past the floor, and a status the CRD admits',
    () => {
      const started = performance.now();
      let judged = 0;
      fc.assert(
        fc.property(
          protectors.chain((raw) => {
            const r = parseProtector(asRead(raw));
            const p = r.ok ? r.value : undefined;
            const cells = [...new Set(['cell-a', ...(p ? cellsOf(p).map((c) => c.id) : [])])];
            return fc.tuple(fc.constant(p), requests(cells));
          }),
          ([p, reqs]) => {
            if (!p) throw new Error('unread');
            const round = evaluateBatch(p as PodProtector, reqs, NOW);
            const cells = cellsOf(p);
            const summary = summarize(cells, NOW);
            const lag = totalLag(cells);
            const { maxConcurrentLag } = historyConfig(p);
            judged += reqs.length;
            // the deletions that take quota: each leaves one fewer, none may go below minAvailable + lag
            const okBy = new Map<string, number>();
            reqs.forEach((r, i) => {
              if (r.kind !== 'admit' || round.verdicts[i] !== 'Ok') return;
              okBy.set(r.criterion, (okBy.get(r.criterion) ?? 0) + 1);
              expect(r.health[r.criterion.toLowerCase() as keyof AdmitRequest['health']]).toBe(true);
            });
            let ok = 0;
            for (const [criterion, n] of okBy) {
              ok += n;
              const room =
                countFor(summary, criterion as (typeof CRITERIA)[number]) - p.spec.minAvailable - lag;
              expect(n, `${criterion}: admitted past the floor`).toBeLessThanOrEqual(Math.max(0, room));
            }
            if (maxConcurrentLag > 0) expect(ok).toBeLessThanOrEqual(Math.max(0, maxConcurrentLag - lag));
            if (!round.cells) return;
            // what the webhook writes back: a status the CRD admits, read back to the same lag
            const written = { ...(asRead(p) as object), status: statusOf(round.cells, NOW) };
            expect(admitted(asRead(written))).toBeUndefined();
            const again = parseProtector(asRead(written));
            expect(again.ok && totalLag(cellsOf(again.value))).toBe(totalLag(round.cells));
          },
        ),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport(
        'PodProtector: quota and status on schema-valid objects',
        cases,
        performance.now() - started,
        `${judged} requests judged`,
      );
    },
    fuzzTimeout(cases, 60),
  );
});
