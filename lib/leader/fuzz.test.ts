// Property-based fuzzing (fast-check) of what leader election and epoch fencing read: the
// fieldManager of a write (epochOf, judgeEpoch — the epoch webhook's rule), the controller
// Lease's record (judgeLease, observe), the Events on it (leaderEventOf, leadershipHistory,
// the Leadership page) and a refused write's error (isStaleEpochRefusal). Hostile values never
// throw, and the epoch rule never fails open: a fieldManager that names an epoch other than the
// Lease's is never judged current nor "not a leader write". FUZZ_SEED replays; FUZZ_CASES scales.
import type * as k8s from '@kubernetes/client-node';
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
import { epochFieldManager, epochOf, judgeEpoch } from './epoch.js';
import { isStaleEpochRefusal, STALE_EPOCH_CAUSE } from './events.js';
import { leaderEventOf, leadershipHistory } from './history.js';
import { judgeLease, observe, sameRecord } from './lease.js';

const PREFIX = 'palisade-leader-e';
const transitions = fc.oneof(fc.nat(10), fc.constantFrom(0, 2 ** 31 - 1, Number.MAX_SAFE_INTEGER));
const fieldManager = fc.oneof(
  { weight: 4, arbitrary: transitions.map(epochFieldManager) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        '-1',
        '01',
        '1e3',
        '1.5',
        '',
        ' 1',
        '１',
        '0x1',
        '999999999999999',
        '9999999999999999',
        'NaN',
        '1 ',
      )
      .map((d) => `${PREFIX}${d}`),
  },
  { weight: 1, arbitrary: hostileString(QUERY_SIZE).map((s) => `${PREFIX}${s}`) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      hostileString(QUERY_SIZE),
      fc.constantFrom('kubectl', 'palisade', 'palisade-leader-'),
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const time = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'garbage' : d.toISOString())),
  fc.constantFrom('', 'yesterday', '0001-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', undefined),
);
const leaseRef = { namespace: 'kube-system', name: 'palisade-controllers' };
const event: fc.Arbitrary<k8s.CoreV1Event> = fc.record(
  {
    metadata: fc.record(
      { name: hostileString(QUERY_SIZE), creationTimestamp: time as fc.Arbitrary<any> },
      { requiredKeys: [] },
    ),
    involvedObject: fc.oneof(
      fc.constant({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...leaseRef }),
      fc.record(
        { apiVersion: hostileString(QUERY_SIZE), kind: fc.constantFrom('Lease', 'Pod') },
        { requiredKeys: [] },
      ),
    ),
    reason: fc.constantFrom('LeaderElection', 'StaleLeaderWrite', 'Other', ''),
    message: fc.oneof(
      fc
        .tuple(hostileString(QUERY_SIZE), fc.oneof(fc.nat(), fc.constantFrom(-1, 1e20)))
        .map(([h, n]) => `${h} became leader (epoch ${n})`),
      hostileString(QUERY_SIZE),
    ),
    action: fc.oneof(
      transitions.map((n) => `epoch-${n}`),
      hostileString(QUERY_SIZE),
    ),
    reportingInstance: hostileString(QUERY_SIZE),
    source: fc.record({ component: fc.constantFrom('palisade', 'kubelet', '') }),
    firstTimestamp: time as fc.Arbitrary<any>,
    lastTimestamp: time as fc.Arbitrary<any>,
    eventTime: time as fc.Arbitrary<any>,
    count: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1)),
    series: fc.record(
      { count: fc.integer(), lastObservedTime: time as fc.Arbitrary<any> },
      { requiredKeys: [] },
    ),
    type: fc.constantFrom('Normal', 'Warning', ''),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<k8s.CoreV1Event>;

describe('fuzzing the leader reads (fast-check)', () => {
  const cases = fuzzCases(300);

  it(
    'the epoch rule: never a throw, never a wrong epoch let through',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(fieldManager, transitions, hostileString(QUERY_SIZE), (fm, n, holder) => {
          const v = judgeEpoch(fm, { ...leaseRef, transitions: n, holder });
          const epoch = epochOf(fm);
          if (fm?.startsWith(PREFIX)) {
            expect(v.kind).not.toBe('not-a-leader-write');
            if (epoch !== n) expect(v.kind, `${fm} at epoch ${n}`).not.toBe('current');
          } else expect(v.kind).toBe('not-a-leader-write');
          // current: the suffix is a whole number equal to the Lease's epoch ("05" names 5 too)
          if (v.kind === 'current') expect(Number(fm?.slice(PREFIX.length))).toBe(n);
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('leader: fieldManager epochs (judgeEpoch)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 30),
  );

  it(
    'the Lease record and the Events on it: never a throw',
    () => {
      const started = performance.now();
      const record = fc.record(
        {
          holder: fc.oneof(fc.constantFrom('me', 'other', ''), hostileString(QUERY_SIZE)),
          durationSeconds: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, Number.NaN)),
          transitions,
          renewTime: fc.option(hostileString(QUERY_SIZE), { nil: undefined }),
        },
        { requiredKeys: ['holder', 'durationSeconds', 'transitions'] },
      );
      fc.assert(
        fc.property(
          fc.option(record, { nil: undefined }),
          fc.option(fc.record({ record, at: fc.integer() }), { nil: undefined }),
          fc.array(event, { maxLength: 6 }),
          fc.integer(),
          (current, seen, events, now) => {
            const step = judgeLease(current, seen, 'me', now);
            if (step.kind === 'acquire' && current?.holder && current.holder !== 'me')
              expect(now).toBeGreaterThanOrEqual(
                (seen && sameRecord(seen.record, current) ? seen.at : now) + current.durationSeconds * 1000,
              );
            observe(seen, current, now);
            const h = leadershipHistory({
              lease: leaseRef,
              events: events.map(leaderEventOf),
              now: current ? { holder: current.holder, transitions: current.transitions } : undefined,
            });
            for (const t of h.terms) expect(Number.isSafeInteger(t.epoch)).toBe(true);
          },
        ),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('leader: Lease record and Lease Events', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 60),
  );

  it(
    'a refused write, whatever its body: told apart without a throw',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(
          fc.oneof(
            fc.jsonValue({ maxDepth: 4 }),
            fc.jsonValue({ maxDepth: 4 }).map((body) => ({ code: 409, body })),
            fc.jsonValue({ maxDepth: 4 }).map((body) => ({ body: JSON.stringify(body) })),
            fc.string().map((body) => ({ body })),
            fc.constant({ body: { details: { causes: [{ reason: STALE_EPOCH_CAUSE }] } } }),
          ),
          (err) => {
            expect(typeof isStaleEpochRefusal(err)).toBe('boolean');
          },
        ),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('leader: refused-write errors (isStaleEpochRefusal)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 30),
  );
});
