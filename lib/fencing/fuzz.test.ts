// Property-based fuzzing (fast-check) of how the fencing controller reads FencePolicies and
// NodeFences and decides (parseFencePolicy, parseNodeFence, decide, upcomingOf). Any JSON is
// read or refused naming a field, never a throw; every FencePolicy and NodeFence the CRDs admit
// (server/test/fuzzCrd.ts) is read or refused the same way; and on what is read, with any node
// and Lease, the machine never throws and never fails open: no agent runs outside the Fencing
// phase, for a cancelled fence before its first attempt, on a node its policy calls healthy,
// past the policy's retries, while the budget holds it (unless a person asked), or while an
// agent is running; a Manual policy's fence never reaches Fencing unapproved; no fence is created
// for a healthy node, on a paused policy or over the budget. FUZZ_SEED replays; FUZZ_CASES scales.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crdValidator } from '../../server/test/crdValidator.js';
import {
  crdObject,
  crdSchema,
  dateTime,
  FENCE_POLICY_CRD,
  labelKey,
  labelValue,
  metadataOf,
  NODE_FENCE_CRD,
} from '../../server/test/fuzzCrd.js';
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
import { judgeBudget } from './budget.js';
import { type NodeFacts, nodeHealth } from './health.js';
import { decide, type FenceWorld } from './machine.js';
import { API_VERSION, type FencePolicy, type NodeFence, parseFencePolicy, parseNodeFence } from './types.js';
import { upcomingOf } from './warning.js';
import { fenceWorldOf } from './coverage.js';
import { fenceAtFor, warningMs } from './machine.js';
import { fenceOutlook, type OutlookInput } from './outlook.js';

const SIZE: Size = { string: 500, depth: 30 };
const policySchema = crdSchema(FENCE_POLICY_CRD);
const fenceSchema = crdSchema(NODE_FENCE_CRD);
const policyAdmitted = crdValidator(policySchema);
const fenceAdmitted = crdValidator(fenceSchema);
const policies = crdObject(policySchema, API_VERSION, 'FencePolicy', {
  size: SIZE,
  metadata: metadataOf(undefined, SIZE),
});
const fences = crdObject(fenceSchema, API_VERSION, 'NodeFence', {
  size: SIZE,
  metadata: metadataOf(undefined, SIZE),
});
const NOW = Date.parse('2026-06-01T12:00:00Z');
/** the outlook's world: no agent running, nothing on the node (they matter only after a fence) */
const NONE = { podsOnNode: 0, attachmentsOnNode: 0, inFlight: false };

const asRead = (v: unknown) => {
  const t = jsonText(v);
  return t === undefined ? undefined : JSON.parse(t);
};

/** Durations and times that FencePolicies may carry: ordinary, zero, and absurdly long. */
const duration = fc.oneof(
  fc.constantFrom('0s', '1ms', '300s', '1m30s', '0.5s', '10s', '99999999h', '9999999999999h', '1e3s', ''),
  fc.tuple(fc.nat(100_000), fc.constantFrom('ms', 's', 'm', 'h')).map(([n, u]) => `${n}${u}`),
);

/**
 * A policy the CRD admits, with the fields Palisade checks further (durations, the budget, the
 * agent, the conditions) usually set to values it reads, so that most policies reach the machine.
 */
const usually = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: a.map((v) => ({ v })) }, { weight: 1, arbitrary: fc.constant(undefined) });
const budgetField = fc.oneof(
  fc.nat(20),
  fc.nat(150).map((n) => `${n}%`),
);
const policyObjects = fc
  .tuple(
    policies,
    fc.record({
      warningWindow: usually(duration),
      timeout: usually(duration),
      retryInterval: usually(duration),
      retryCount: usually(fc.integer({ min: 1, max: 100 })),
      unhealthyConditions: usually(
        fc.array(
          fc.record({
            type: fc.constantFrom('Ready', 'Ready', 'MemoryPressure', 'x'),
            status: fc.constantFrom('True', 'False', 'Unknown'),
            duration,
          }),
          { minLength: 1, maxLength: 3 },
        ),
      ),
      budget: usually(
        fc.oneof(
          fc.constant({}),
          budgetField.map((minHealthy) => ({ minHealthy })),
          budgetField.map((maxUnhealthy) => ({ maxUnhealthy })),
        ),
      ),
      agent: usually(
        fc.oneof(
          fc.record({ type: fc.constant('power'), action: fc.constantFrom('off', 'reboot') }),
          fc.constant({ type: 'storage' }),
          fc.constant({ type: 'exec', agent: 'fence_ipmilan', sharedParameters: { '--lanplus': '' } }),
        ),
      ),
    }),
  )
  .map(([p, o]) => {
    const spec = { ...(p.spec as Record<string, unknown>) };
    delete spec.minHealthy;
    delete spec.maxUnhealthy;
    for (const k of [
      'warningWindow',
      'timeout',
      'retryInterval',
      'retryCount',
      'unhealthyConditions',
      'agent',
    ] as const)
      if (o[k]) spec[k] = o[k].v;
    Object.assign(spec, o.budget?.v ?? {});
    return { ...p, spec };
  });

/** A fence the CRD admits, often in a phase where the machine acts, about one of the two nodes. */
const fenceObjects = fc
  .tuple(
    fences,
    fc.record({
      nodeName: usually(fc.constantFrom('n1', 'n2')),
      cancel: fc.boolean(),
      phase: usually(
        fc.constantFrom('Detected', 'AwaitingApproval', 'Fencing', 'Fencing', 'Fenced', 'Released'),
      ),
      nodeUid: usually(fc.option(fc.constantFrom('uid-1', 'uid-2'), { nil: undefined })),
      detectedAt: usually(fc.integer({ min: NOW - 600_000, max: NOW }).map((t) => new Date(t).toISOString())),
      attempts: usually(
        fc.array(
          fc.record(
            {
              number: fc.integer({ min: 1, max: 5 }),
              startedAt: dateTime,
              finishedAt: dateTime,
              result: fc.constantFrom('Running', 'Succeeded', 'Failed', 'TimedOut', 'Interrupted'),
              exitCode: fc.integer({ min: -1, max: 255 }),
              verification: fc.record({
                at: dateTime,
                state: fc.constantFrom('off', 'on'),
                confirmed: fc.boolean(),
              }),
            },
            { requiredKeys: ['number', 'startedAt', 'result'] },
          ),
          { maxLength: 3 },
        ),
      ),
    }),
  )
  .map(([f, o]) => {
    const spec = { ...(f.spec as Record<string, unknown>) };
    const status = { ...((f.status as Record<string, unknown>) ?? {}) };
    if (o.nodeName) spec.nodeName = o.nodeName.v;
    if (o.cancel) delete spec.cancelRequested;
    for (const k of ['phase', 'nodeUid', 'detectedAt', 'attempts'] as const) if (o[k]) status[k] = o[k].v;
    if (status.nodeUid === undefined) delete status.nodeUid;
    return { ...f, spec, status };
  });

const ms = fc.oneof(
  fc.integer({ min: NOW - 3_600_000, max: NOW + 60_000 }),
  dateTime.map((t) => Date.parse(t)),
  fc.constantFrom(0, NOW),
);

const nodeFacts: fc.Arbitrary<NodeFacts> = fc.record({
  name: fc.constantFrom('n1', 'n2'),
  uid: fc.constantFrom('uid-1', 'uid-2'),
  labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
  conditions: fc.array(
    fc.record(
      {
        type: fc.constantFrom('Ready', 'Ready', 'MemoryPressure', 'NetworkUnavailable', ''),
        status: fc.constantFrom('True', 'False', 'Unknown', ''),
        lastTransitionTime: ms,
      },
      { requiredKeys: ['type', 'status'] },
    ),
    { maxLength: 4 },
  ),
  taints: fc.array(
    fc.record({
      key: fc.constantFrom('node.kubernetes.io/out-of-service', 'node.kubernetes.io/unreachable', 'x'),
      value: fc.constantFrom('nodeshutdown', ''),
      effect: fc.constantFrom('NoExecute', 'NoSchedule'),
    }),
    { maxLength: 2 },
  ),
  bootId: fc.option(fc.constantFrom('boot-1', 'boot-2'), { nil: undefined }),
  lease: fc.option(
    fc.record(
      {
        renewTime: ms,
        durationSeconds: fc.oneof(fc.constantFrom(0, 1, 40, 2 ** 31 - 1, -5), fc.nat(3600)),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
});

interface Case {
  policy: FencePolicy;
  fence?: NodeFence;
  node?: NodeFacts;
  selected: number;
  unhealthy: number;
  podsOnNode: number;
  attachmentsOnNode: number;
  inFlight: boolean;
  policyMissing: boolean;
  now: number;
}

const readable = <T>(p: { ok: true; value: T } | { ok: false; error: string }) =>
  p.ok ? p.value : undefined;

const cases_: fc.Arbitrary<Case | undefined> = fc
  .record({
    policy: policyObjects,
    fence: fc.option(fenceObjects, { nil: undefined }),
    node: fc.option(nodeFacts, { nil: undefined }),
    selected: fc.nat(10),
    unhealthy: fc.nat(10),
    podsOnNode: fc.nat(3),
    attachmentsOnNode: fc.nat(2),
    inFlight: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    policyMissing: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    now: fc.oneof(fc.constant(NOW), ms),
    /** make the node unhealthy the way the policy says, long enough ago */
    unwell: fc.boolean(),
  })
  .map(({ unwell, ...r }) => {
    const policy = readable(parseFencePolicy(asRead(r.policy)));
    if (!policy) return undefined;
    const fence = r.fence && readable(parseNodeFence(asRead(r.fence)));
    const want = policy.spec.unhealthyConditions[0];
    const node =
      r.node && unwell
        ? {
            ...r.node,
            conditions: [{ type: want.type, status: want.status, lastTransitionTime: r.now - 86_400_000 }],
          }
        : r.node;
    return { ...r, policy, fence, node };
  });

function worldOf(c: Case): FenceWorld {
  return {
    now: c.now,
    policy: c.policy.spec,
    node: c.node,
    fence: c.fence,
    budget: judgeBudget(c.policy.spec, c.selected, Math.min(c.selected, c.unhealthy)),
    podsOnNode: c.podsOnNode,
    attachmentsOnNode: c.attachmentsOnNode,
    inFlight: c.inFlight,
    policyMissing: c.policyMissing,
  };
}

describe('fuzzing the FencePolicy and NodeFence reads and the fencing machine (fast-check)', () => {
  const cases = fuzzCases(300);

  it(
    'any JSON: read or refused naming a field, never a throw',
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(anyInput(fc.oneof(policies, fences), BODY_SIZE), (raw) => {
          for (const parse of [parseFencePolicy, parseNodeFence]) {
            const r = parse(asRead(raw));
            if (!r.ok) expect(r.error).toMatch(/^[^:]+: /);
          }
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('FencePolicy/NodeFence: any JSON (parse)', cases, performance.now() - started);
    },
    fuzzTimeout(cases, 30),
  );

  it(
    'the generator makes only objects the CRDs admit; each is read or refused naming a field',
    () => {
      const started = performance.now();
      const read = { policies: 0, fences: 0 };
      fc.assert(
        fc.property(policies, fences, (p, f) => {
          expect(policyAdmitted(p)).toBeUndefined();
          expect(fenceAdmitted(f)).toBeUndefined();
          const rp = parseFencePolicy(asRead(p));
          const rf = parseNodeFence(asRead(f));
          if (rp.ok) read.policies++;
          else expect(rp.error).toMatch(/^[^:]+: /);
          if (rf.ok) read.fences++;
          else expect(rf.error).toMatch(/^[^:]+: /);
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport(
        'FencePolicy/NodeFence: schema-valid (read or refused)',
        cases,
        performance.now() - started,
        `${read.policies} policies and ${read.fences} fences read`,
      );
    },
    fuzzTimeout(cases, 30),
  );

  it(
    'on what is read: the machine never throws and never fails open',
    () => {
      const started = performance.now();
      const kinds = new Map<string, number>();
      fc.assert(
        fc.property(cases_, (c) => {
          fc.pre(c !== undefined);
          const w = worldOf(c!);
          const d = decide(w);
          kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
          upcomingOf(w);
          const f = w.fence;
          const health = w.node && nodeHealth(w.policy, w.node, w.now);
          if (d.kind === 'create') {
            expect(health && !health.healthy && health.longEnough).toBe(true);
            expect(w.policy.paused || !w.budget.allowed).toBe(false);
          }
          if (d.kind === 'run-agent') {
            expect(f?.status.phase).toBe('Fencing');
            expect(w.inFlight).toBe(false);
            expect(w.policyMissing, 'an agent run for a deleted policy').toBe(false);
            expect(health && !health.healthy, 'an agent run on a node its policy calls healthy').toBe(true);
            expect(!!f?.spec.cancelRequested && f.status.attempts.length === 0, 'run after a cancel').toBe(
              false,
            );
            expect(d.attempt).toBeLessThanOrEqual(w.policy.retryCount);
            if (!w.budget.allowed) expect(f?.spec.requestedBy, 'run over the budget').toBeTruthy();
          }
          if (d.kind === 'phase' && d.to === 'Fencing' && f && f.status.phase !== 'Fencing') {
            if (w.policy.approval === 'Manual') expect(f.spec.approvedBy, 'fencing unapproved').toBeTruthy();
            expect(w.policy.paused).toBe(false);
          }
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport(
        'fencing machine: decide on schema-valid objects',
        cases,
        performance.now() - started,
        JSON.stringify(Object.fromEntries(kinds)),
      );
    },
    fuzzTimeout(cases, 60),
  );

  it(
    "the console's outlook never disagrees with the machine",
    () => {
      const started = performance.now();
      const codes = new Map<string, number>();
      fc.assert(
        fc.property(cases_, (c) => {
          fc.pre(c !== undefined);
          const name = c!.fence?.spec.policy ?? c!.policy.metadata.name;
          const i: OutlookInput = {
            now: c!.now,
            nodeName: c!.fence?.spec.nodeName ?? c!.node?.name ?? 'n1',
            node: c!.node,
            fence: c!.fence,
            policies: c!.policyMissing ? [] : [{ name, spec: c!.policy.spec }],
            budget: (spec) => judgeBudget(spec, c!.selected, Math.min(c!.selected, c!.unhealthy)),
          };
          const o = fenceOutlook(i);
          codes.set(o.code, (codes.get(o.code) ?? 0) + 1);
          const built = fenceWorldOf({ ...i, ...NONE });
          if (!built) {
            expect(o.code).toBe('no-fence-coming');
            return;
          }
          const w = built.world;
          const d = decide(w);
          const fresh = !w.fence || ['Cancelled', 'Failed', 'Recovered'].includes(w.fence.status.phase);
          // a fence the machine starts now is announced, due now (replacing an ended one, it
          // creates the new fence under the policy covering the node now, if any)
          const next = d.kind === 'replace' ? fenceWorldOf({ ...i, ...NONE, fence: undefined }) : built;
          if ((d.kind === 'create' || d.kind === 'replace') && next && decide(next.world).kind === 'create')
            expect(o).toMatchObject({
              code: 'fence-pending',
              fenceAt: w.policy.approval === 'Manual' ? w.now : fenceAtFor(w.policy, w.now),
            });
          // a start announced for later: the machine, on the same facts then, starts it then
          if (o.code === 'fence-pending') {
            const detectAt = o.manual ? o.fenceAt : o.fenceAt - warningMs(w.policy);
            expect(detectAt).toBeGreaterThanOrEqual(w.now);
            expect(['create', 'replace']).toContain(decide({ ...w, now: detectAt }).kind);
          }
          // the Fencing page's and incident view's announcement says the same
          const nw = w.fence ? fenceWorldOf({ ...i, ...NONE, fence: undefined })?.world : w;
          const u = fresh && nw ? upcomingOf(w, nw) : undefined;
          if (u && !u.paused) expect(o).toMatchObject({ code: 'fence-pending', fenceAt: u.fenceAt });
          if (u?.paused) expect(o.code).toBe('fence-paused');
          // nothing coming: the machine starts nothing and runs no agent
          // (replacing an ended fence starts one only where a policy covers the node now)
          const starting =
            d.kind === 'replace'
              ? !!nw && decide(nw).kind === 'create'
              : ['create', 'adopt', 'run-agent'].includes(d.kind);
          if (o.code === 'no-fence-coming' || o.code === 'fence-paused') expect(starting, d.kind).toBe(false);
          // held by the budget exactly when the machine holds it (now, or at the step it takes next)
          // (an ended fence whose node no policy covers now gets no new fence: nothing to hold)
          if (d.kind === 'wait' && d.reason === 'budget' && nw) expect(o.code).toBe('fence-held');
          if (d.kind === 'phase' && d.reason === 'BudgetExceeded') expect(o.code).toBe('fence-held');
          if (o.code === 'fence-held') expect(w.budget.allowed).toBe(false);
          // a fence that waits for a person is said to
          if (d.kind === 'wait' && d.reason === 'approval') expect(o.code).toBe('fence-awaiting-approval');
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport(
        'fence outlook against the machine',
        cases,
        performance.now() - started,
        JSON.stringify(Object.fromEntries(codes)),
      );
    },
    fuzzTimeout(cases, 60),
  );
});
