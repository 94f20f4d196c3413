// Property-based fuzzing (fast-check) of the webhook listener's other admission paths, through
// HTTPS with an allowed client certificate, against the real handlers on a cluster:
// POST /fences/<cell> (NodeFence approvals and cancels, judged with SubjectAccessReviews) and
// POST /epochs/<cell> (leader writes judged against the controller Lease, read live) — and
// POST /fencepolicies/<cell> once the listener serves it (branch i23-agents; probed at the start),
// where a write that (re)configures an exec agent with --use-sudo or any *-path parameter must
// never be admitted (a pause alone may be). Generated reviews —
// well-formed ones with hostile users, groups, names and specs, odd operations, wrong types, and
// bodies that are not reviews at all — must get 200 with a well-formed AdmissionResponse carrying
// the request's uid, or 400; never a 500, a crash or an unhandled rejection; never an admitted
// write the rule refuses: an approval, a "Fence now" or a cancel by someone the cluster does not
// allow (or in someone else's name), a leader write whose epoch is not the Lease's. A refused
// review changes nothing in the cluster but the Lease's own stale-write Events, bounded.
// FUZZ_SEED replays; FUZZ_CASES/FUZZ_RUNS scale.
import { mkdtemp, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochFieldManager } from '../../../lib/leader/epoch.js';
import { REASON_STALE_WRITE } from '../../../lib/leader/events.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../lib/pki/certificates.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { DEFAULT_LEADER_ELECTION as LEASE } from '../../runtime/manager.js';
import { palisadeKc } from '../../test/identity.js';
import {
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  hostileString,
  QUERY_SIZE,
  reporter,
  wrongTyped,
} from '../../trpc/test/fuzzInputs.js';
import type { ProtectionService } from '../service.js';
import { type ClientCert, issueClientCert } from './clientCerts.js';
import { baseConfig, CELL, type Cluster, scenario } from './protectionHarness.js';
import { watchProcess } from '../../test/processWatch.js';
import { startProtectionAlone } from './standalone.js';

/** the controller Lease's epoch during the run (held by another console: nothing here moves it) */
const EPOCH = 5;
const FENCE_VERBS = ['approve', 'cancel'] as const;
type Verb = (typeof FENCE_VERBS)[number];
/** who may do what on nodefences (the RBAC the test writes); anyone else: nothing */
const USERS: Record<string, Verb[]> = {
  'fuzz-approver': ['approve'],
  'fuzz-canceller': ['cancel'],
  'fuzz-both': ['approve', 'cancel'],
};
const GROUPS: Record<string, Verb[]> = { 'fuzz-approvers': ['approve'] };
const NOBODY = ['fuzz-nobody', 'system:anonymous', 'viewer'];
/** bound to cluster-admin: every verb, so only the agent rule can refuse its FencePolicy writes */
const ADMIN = 'fuzz-admin';
/** does the listener serve /fencepolicies/<cell> (branch i23-agents)? probed before the run */
let servesPolicies = false;

let cluster: Cluster;
let protection: ProtectionService;
let ca: CertificateAuthority;
let client: ClientCert;
let agent: https.Agent;
const watch = watchProcess();
let staleEventsBefore = 0;
let startedAt = 0;

beforeAll(async () => {
  watch.start();
  ca = await createCertificateAuthority('fuzz-webhooks-apiserver-ca');
  client = await issueClientCert(ca, 'kube-apiserver-webhook-client');
  const dir = await mkdtemp(join(tmpdir(), 'palisade-fuzz-webhooks-'));
  await writeFile(join(dir, 'ca.pem'), ca.certPem);
  cluster = await startScenario(scenario('webhooks-fuzz'));
  // another console leads, at epoch EPOCH, for the whole run: the epoch check reads this Lease
  await cluster.kc.makeApiClient(k8s.CoordinationV1Api).createNamespacedLease({
    namespace: LEASE.namespace,
    body: {
      metadata: { name: LEASE.name },
      spec: {
        holderIdentity: 'another-console',
        leaseDurationSeconds: 3600,
        leaseTransitions: EPOCH,
        acquireTime: new k8s.V1MicroTime(),
        renewTime: new k8s.V1MicroTime(),
      },
    },
  });
  await grantFenceVerbs();
  protection = await startProtectionAlone({
    config: baseConfig({
      webhook: { port: 0, host: '127.0.0.1', register: false, clientAuth: { caFile: join(dir, 'ca.pem') } },
      generator: { enabled: false, workloadSelector: '' },
    }),
    clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(cluster.kc) }],
  });
  agent = new https.Agent({
    keepAlive: true,
    maxSockets: 4,
    ca: protection.webhook.caPem,
    cert: client.cert,
    key: client.key,
  });
  staleEventsBefore = await staleEvents();
  startedAt = Date.now();
  servesPolicies = (await post(`/fencepolicies/${CELL}`, '{}'))[0] !== 404;
}, 120_000);

afterAll(async () => {
  watch.stop();
  agent?.destroy();
  await protection?.stop();
  await cluster?.stop();
});

async function grantFenceVerbs() {
  const rbac = cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const role = (name: string, verbs: Verb[]) =>
    rbac.createClusterRole({
      body: {
        metadata: { name },
        rules: [{ apiGroups: ['palisade.dev'], resources: ['nodefences'], verbs }],
      },
    });
  const bind = (name: string, kind: 'User' | 'Group', subject: string) =>
    rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `${name}-${subject}`.replace(/[^a-z0-9-]/g, '-') },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind, name: subject }],
      },
    });
  for (const [user, verbs] of Object.entries(USERS)) {
    await role(`fuzz-${verbs.join('-')}`, verbs).catch(() => undefined);
    await bind(`fuzz-${verbs.join('-')}`, 'User', user);
  }
  for (const [group, verbs] of Object.entries(GROUPS)) await bind(`fuzz-${verbs.join('-')}`, 'Group', group);
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'fuzz-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: ADMIN }],
    },
  });
}

async function staleEvents(): Promise<number> {
  const list = await cluster.core.listNamespacedEvent({ namespace: LEASE.namespace });
  return list.items.filter((e) => e.reason === REASON_STALE_WRITE).length;
}

// ---- the wire ------------------------------------------------------------------------------

function post(path: string, text: string): Promise<[number, unknown, string]> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${protection.webhook.url}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const t = Buffer.concat(chunks).toString('utf8');
          const json = res.headers['content-type'] === 'application/json';
          resolve([res.statusCode ?? 0, json ? JSON.parse(t) : t, t]);
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer in 15 s: POST ${path}`)));
    req.end(text);
  });
}

const isObj = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The answer is well-formed: a review answering the request's uid, or 400 saying why. */
function checkAnswer(status: number, body: unknown, text: string, sent: unknown, shown: () => string) {
  if (status === 200) {
    const r = (body as any)?.response;
    expect(body, shown()).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(typeof r?.allowed, shown()).toBe('boolean');
    expect(r.uid, shown()).toBe((sent as any)?.request?.uid);
    if (!r.allowed) {
      expect(typeof r.status?.code, shown()).toBe('number');
      expect(typeof r.status?.message, shown()).toBe('string');
    }
    return r.allowed as boolean;
  }
  expect(status, shown()).toBe(400);
  expect(text, shown()).toMatch(/^(malformed AdmissionReview: |error parsing JSON body: )/);
  return false;
}

// ---- generators ----------------------------------------------------------------------------

const S = QUERY_SIZE;
const mostly = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 30, arbitrary: a },
    { weight: 1, arbitrary: wrongTyped(S) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
const uid = fc.oneof(
  { weight: 20, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: hostileString(S) },
  {
    weight: 1,
    arbitrary: wrongTyped(S),
  },
);
const username = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(USERS), ...NOBODY) },
  { weight: 1, arbitrary: hostileString(S) },
);
const groups = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('system:authenticated', 'fuzz-approvers', 'other') },
    { weight: 1, arbitrary: hostileString(S) },
  ),
  { maxLength: 3 },
);
const userInfo = fc.record(
  {
    username: mostly(username),
    uid: mostly(hostileString(S)),
    groups: mostly(groups),
    extra: mostly(
      fc.dictionary(hostileString(S), fc.array(hostileString(S), { maxLength: 2 }), { maxKeys: 2 }),
    ),
  },
  { requiredKeys: [] },
);
const who = fc.oneof(username, fc.constantFrom(...Object.keys(USERS)));
const at = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  hostileString(S),
);
const byAt = fc.record(
  { by: mostly(who), at: mostly(at), reason: mostly(hostileString(S)) },
  { requiredKeys: [] },
);
/** a NodeFence spec: each of the judged fields set, left out, null, or of another type */
const fenceSpec = fc.record(
  {
    nodeName: fc.constantFrom('n1', 'n2'),
    policy: fc.constantFrom('p', ''),
    approvedBy: fc.oneof(who, fc.constant(null), wrongTyped(S)),
    approvedAt: fc.oneof(at, fc.constant(null)),
    cancelRequested: fc.oneof(byAt, fc.constant(null), wrongTyped(S)),
    requestedBy: fc.oneof(byAt, fc.constant(null), wrongTyped(S)),
  },
  { requiredKeys: ['nodeName', 'policy'] },
);
const fenceObject = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      apiVersion: fc.constant('palisade.dev/v1alpha1'),
      kind: fc.constant('NodeFence'),
      metadata: fc.record(
        { name: fc.oneof(fc.constantFrom('n1', 'n2'), hostileString(S)) },
        { requiredKeys: [] },
      ),
      spec: fenceSpec,
    }),
  },
  { weight: 1, arbitrary: wrongTyped(S) },
  { weight: 1, arbitrary: fc.constant(null) },
);

interface Review {
  apiVersion: unknown;
  kind: unknown;
  request: any;
}

const envelope = <T>(request: fc.Arbitrary<T>) =>
  fc.record({
    apiVersion: fc.oneof(
      { weight: 30, arbitrary: fc.constant('admission.k8s.io/v1') },
      { weight: 1, arbitrary: fc.constantFrom('admission.k8s.io/v1beta1', '', 'v1') },
    ),
    kind: fc.oneof(
      { weight: 30, arbitrary: fc.constant('AdmissionReview') },
      { weight: 1, arbitrary: fc.constantFrom('AdmissionResponse', 'admissionreview') },
    ),
    request: fc.oneof({ weight: 40, arbitrary: request }, { weight: 1, arbitrary: wrongTyped(S) }),
  });

const operation = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom('CREATE', 'UPDATE', 'UPDATE') },
  { weight: 2, arbitrary: fc.constantFrom('DELETE', 'CONNECT', 'update', '') },
  { weight: 1, arbitrary: wrongTyped(S) },
);

const fenceReviews: fc.Arbitrary<Review> = envelope(
  fc.record(
    {
      uid,
      kind: fc.constant({ group: 'palisade.dev', version: 'v1alpha1', kind: 'NodeFence' }),
      resource: fc.constant({ group: 'palisade.dev', version: 'v1alpha1', resource: 'nodefences' }),
      operation,
      name: mostly(fc.constantFrom('n1', 'n2')),
      userInfo,
      object: fenceObject,
      oldObject: fenceObject,
      dryRun: fc.boolean(),
    },
    { requiredKeys: ['uid', 'operation', 'object'] },
  ),
);

const fieldManager = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: EPOCH + 3 }).map(epochFieldManager) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('-1', '05', '1e1', '5.0', '', ' 5', '99999999999999999', 'NaN')
      .map((d) => `palisade-leader-e${d}`),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(hostileString(S), fc.constantFrom('kubectl', 'palisade', 'palisade-leader-')),
  },
);
const epochReviews: fc.Arbitrary<Review> = envelope(
  fc.record(
    {
      uid,
      operation: mostly(fc.constantFrom('CREATE', 'UPDATE')),
      resource: mostly(
        fc.oneof(
          fc.constant({ group: 'palisade.dev', version: 'v1alpha1', resource: 'nodefences' }),
          fc.constant({ group: 'podseidon.kubewharf.io', version: 'v1alpha1', resource: 'podprotectors' }),
          fc.constant({ group: '', version: 'v1', resource: 'nodes' }),
        ),
      ),
      subResource: fc.oneof(fc.constantFrom('status', ''), hostileString(S)),
      name: mostly(hostileString(S)),
      namespace: mostly(fc.constantFrom('', 'shop')),
      options: fc.oneof(
        { weight: 20, arbitrary: fc.record({ fieldManager: mostly(fieldManager) }, { requiredKeys: [] }) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: wrongTyped(S) },
      ),
      userInfo,
    },
    { requiredKeys: ['uid', 'operation', 'resource'] },
  ),
);

/** bodies that are not reviews */
const garbage = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('', '{', '[]', 'null', '{"request":{}}', '\u0000'),
  fc
    .integer({ min: 10_000, max: 300_000 })
    .map(
      (n) =>
        `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"${'x'.repeat(n)}"`,
    ),
);

// ---- the rules, as the oracle states them -------------------------------------------------

/**
 * Does this user, with these groups, lack the verb for certain? Only said of the users the test
 * bound or knows to have nothing, with no group the test did not bind (any other group, such as
 * system:masters, might hold the verb somewhere).
 */
function lacks(user: unknown, groupList: unknown, verb: Verb): boolean {
  if (typeof user !== 'string' || !(Object.hasOwn(USERS, user) || NOBODY.includes(user))) return false;
  const gs = Array.isArray(groupList) ? groupList : [];
  const known = (g: unknown) =>
    g === 'system:authenticated' || g === 'other' || (typeof g === 'string' && Object.hasOwn(GROUPS, g));
  if (!gs.every(known)) return false;
  if (Object.hasOwn(USERS, user) && USERS[user].includes(verb)) return false;
  return !gs.some((g) => Object.hasOwn(GROUPS, g as string) && GROUPS[g as string].includes(verb));
}

// sorted by key alone: the default sort turns each [key, value] pair into a string, which throws
// for a value like {"toString": {}} (found by this fuzz on the real control plane)
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
const canon = (v: unknown) =>
  JSON.stringify(v ?? null, (_k, x) => (isObj(x) ? Object.fromEntries(Object.entries(x).sort(byKey)) : x));

/** The verbs a NodeFence write needs, and whether it names someone else: undefined when it makes no claim. */
function fenceClaim(
  r: Review,
): { verbs: Verb[]; otherName: boolean; user: string; groups: unknown } | undefined {
  if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview' || !isObj(r.request)) return;
  const q = r.request;
  if (q.operation !== 'CREATE' && q.operation !== 'UPDATE') return;
  if (!isObj(q.object) || !isObj(q.object.spec)) return;
  if (!isObj(q.userInfo) || typeof q.userInfo.username !== 'string') return;
  const user: string = q.userInfo.username;
  const n = q.object.spec;
  const o = q.operation === 'UPDATE' && isObj(q.oldObject) && isObj(q.oldObject.spec) ? q.oldObject.spec : {};
  const changed = (k: string) => canon(o[k]) !== canon(n[k]);
  const verbs: Verb[] = [];
  let otherName = false;
  if (changed('approvedBy') || changed('approvedAt') || changed('requestedBy')) {
    verbs.push('approve');
    if (typeof n.approvedBy === 'string' && n.approvedBy && n.approvedBy !== user) otherName = true;
    if (
      changed('requestedBy') &&
      isObj(n.requestedBy) &&
      typeof n.requestedBy.by === 'string' &&
      n.requestedBy.by &&
      n.requestedBy.by !== user
    )
      otherName = true;
  }
  if (changed('cancelRequested')) {
    verbs.push('cancel');
    if (
      isObj(n.cancelRequested) &&
      typeof n.cancelRequested.by === 'string' &&
      n.cancelRequested.by &&
      n.cancelRequested.by !== user
    )
      otherName = true;
  }
  return { verbs, otherName, user, groups: q.userInfo.groups };
}

/** A leader write this review carries, and whether the rule must refuse it. */
function epochClaim(r: Review): boolean | undefined {
  if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview' || !isObj(r.request)) return;
  const fm = isObj(r.request.options) ? r.request.options.fieldManager : undefined;
  if (typeof fm !== 'string' || !fm.startsWith('palisade-leader-e')) return;
  // only a whole number equal to the Lease's epoch is current ("05" names epoch 5 too)
  const digits = fm.slice('palisade-leader-e'.length);
  return !(/^\d{1,15}$/.test(digits) && Number(digits) === EPOCH);
}

/** Agent parameters: ordinary, and the ones that name a program or a path to run. */
const FORBIDDEN = /^--(use-sudo|[a-z0-9-]*-path)$/;
const parameterName = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('--ip', '--username', '--password', '--lanplus', '--ipport', '--plug'),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '--use-sudo',
      '--sudo-path',
      '--ipmitool-path',
      '--ssh-path',
      '--amttool-path',
      '--x-path',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(hostileString(S), fc.constantFrom('use-sudo', '--USE-SUDO', '--sudo_path', '')),
  },
);
const parameterValue = fc.oneof(
  fc.constantFrom(
    '',
    '127.0.0.1',
    'admin',
    "/bin/sh -c 'id >> /tmp/x'",
    '$(id)',
    '`id`',
    'a b',
    'a;b',
    'a\nb',
  ),
  hostileString(S),
);
const policySpec = fc.record(
  {
    nodeSelector: fc.constant({ matchLabels: { 'fuzz.palisade.dev/never': 'true' } }),
    approval: fc.constantFrom('Automatic', 'Manual'),
    paused: fc.boolean(),
    agent: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            type: fc.constant('exec'),
            agent: fc.oneof(
              fc.constantFrom('fence_ipmilan', 'fence_ipmilan', 'fence_redfish'),
              hostileString(S),
            ),
            sharedParameters: fc.dictionary(parameterName, parameterValue, { maxKeys: 4 }),
            nodeParameters: fc.dictionary(
              parameterName,
              fc.dictionary(fc.constantFrom('n1', 'n2'), parameterValue, { maxKeys: 2 }),
              {
                maxKeys: 2,
              },
            ),
            credentialsNamespace: fc.constantFrom('palisade-system', 'kube-system', 'default'),
            secretRefs: fc.array(
              fc.record({
                name: fc.constantFrom('bmc', 'x'),
                key: fc.constant('password'),
                parameter: parameterName,
              }),
              { maxLength: 2 },
            ),
          },
          { requiredKeys: ['type', 'agent'] },
        ),
      },
      { weight: 1, arbitrary: fc.constant({ type: 'power' }) },
    ),
  },
  { requiredKeys: ['agent'] },
);
const policyObject = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      apiVersion: fc.constant('palisade.dev/v1alpha1'),
      kind: fc.constant('FencePolicy'),
      metadata: fc.record({ name: fc.constantFrom('p1', 'p2') }),
      spec: policySpec,
    }),
  },
  { weight: 1, arbitrary: wrongTyped(S) },
);
const policyReviews: fc.Arbitrary<Review> = envelope(
  fc
    .record(
      {
        uid,
        kind: fc.constant({ group: 'palisade.dev', version: 'v1alpha1', kind: 'FencePolicy' }),
        resource: fc.constant({ group: 'palisade.dev', version: 'v1alpha1', resource: 'fencepolicies' }),
        operation,
        name: mostly(fc.constantFrom('p1', 'p2')),
        userInfo: fc.oneof(
          { weight: 3, arbitrary: fc.constant({ username: ADMIN }) },
          { weight: 1, arbitrary: userInfo },
        ),
        object: policyObject,
        oldObject: fc.oneof(policyObject, fc.constant(null)),
      },
      { requiredKeys: ['uid', 'operation', 'object'] },
    )
    // an update that changes only whether it is paused: the same policy before
    .chain((q) =>
      fc
        .boolean()
        .map((pauseOnly) =>
          pauseOnly && isObj(q.object) && isObj(q.object.spec)
            ? { ...q, oldObject: { ...q.object, spec: { ...q.object.spec, paused: !q.object.spec.paused } } }
            : q,
        ),
    ),
);

/** A FencePolicy write that (re)configures an exec agent with a parameter naming a program or path. */
function policyClaim(r: Review): boolean | undefined {
  if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview' || !isObj(r.request)) return;
  const q = r.request;
  if (q.operation !== 'CREATE' && q.operation !== 'UPDATE') return;
  if (!isObj(q.object) || !isObj(q.object.spec)) return;
  const withoutPaused = (spec: unknown) => {
    const { paused: _p, ...rest } = isObj(spec) ? spec : {};
    return canon(rest);
  };
  const configured =
    q.operation === 'CREATE' ||
    !isObj(q.oldObject) ||
    withoutPaused(q.oldObject.spec) !== withoutPaused(q.object.spec);
  const agent = q.object.spec.agent;
  if (!configured || !isObj(agent) || agent.type !== 'exec') return;
  const names = [
    ...Object.keys(isObj(agent.sharedParameters) ? agent.sharedParameters : {}),
    ...Object.keys(isObj(agent.nodeParameters) ? agent.nodeParameters : {}),
  ];
  return names.some((n) => FORBIDDEN.test(n)) || undefined;
}

// ---- the table: one entry per path the listener serves -------------------------------------

interface Boundary {
  path: string;
  reviews: fc.Arbitrary<Review>;
  /** must this review be refused? undefined: no claim */
  mustRefuse(r: Review): boolean | undefined;
  defaultCases: number;
}

const WEBHOOKS: Record<string, Boundary> = {
  fences: {
    path: `/fences/${CELL}`,
    reviews: fenceReviews,
    mustRefuse(r) {
      const c = fenceClaim(r);
      if (!c) return undefined;
      return c.otherName || c.verbs.some((v) => lacks(c.user, c.groups, v));
    },
    defaultCases: 400,
  },
  epochs: { path: `/epochs/${CELL}`, reviews: epochReviews, mustRefuse: epochClaim, defaultCases: 400 },
  // FencePolicy admission (branch i23-agents): fuzzed once the listener serves the path
  fencepolicies: {
    path: `/fencepolicies/${CELL}`,
    reviews: policyReviews,
    mustRefuse: policyClaim,
    defaultCases: 400,
  },
};

// ---- the tests -----------------------------------------------------------------------------

describe('fuzzing the NodeFence and leader-epoch admission paths (fast-check, over HTTPS)', () => {
  for (const [name, b] of Object.entries(WEBHOOKS)) {
    const cases = fuzzCases(b.defaultCases);
    it(
      `/${name}/<cell>: ${cases} reviews, well-formed answers, never an admission the rule refuses`,
      async () => {
        if (name === 'fencepolicies' && !servesPolicies)
          return void console.log(
            'fuzz webhooks: /fencepolicies/<cell> is not served by this listener yet: not fuzzed',
          );
        const started = performance.now();
        const tally = { refusedByRule: 0, statuses: new Map<number, number>() };
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              { weight: 9, arbitrary: b.reviews.map((r) => JSON.stringify(r)) },
              { weight: 1, arbitrary: garbage },
            ),
            async (text) => {
              let sent: unknown;
              try {
                sent = JSON.parse(text);
              } catch {
                sent = undefined;
              }
              const [status, body, raw] = await post(b.path, text);
              tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
              const shown = () => `${b.path} ${text.slice(0, 600)} -> ${status} ${raw.slice(0, 300)}`;
              const allowed = checkAnswer(status, body, raw, sent, shown);
              if (isObj(sent) && b.mustRefuse(sent as unknown as Review)) {
                tally.refusedByRule++;
                expect(allowed, `admitted what the rule refuses: ${shown()}`).toBe(false);
              }
            },
          ),
          { numRuns: cases, seed: FUZZ_SEED, reporter },
        );
        expect(tally.refusedByRule, 'the generator made no review the rule must refuse').toBeGreaterThan(
          cases / 20,
        );
        fuzzReport(
          `webhook /${name}/<cell>`,
          cases,
          performance.now() - started,
          `${tally.refusedByRule} the rule refuses; statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}`,
        );
      },
      fuzzTimeout(cases, 300),
    );
  }

  it('afterwards: no unhandled rejection, the Lease as it was, stale-write Events bounded, still answering', async () => {
    watch.expectClean();
    const lease = await cluster.kc
      .makeApiClient(k8s.CoordinationV1Api)
      .readNamespacedLease({ namespace: LEASE.namespace, name: LEASE.name });
    expect([lease.spec?.holderIdentity, lease.spec?.leaseTransitions]).toEqual(['another-console', EPOCH]);
    // one Event per refused epoch (the generator names at most 10: 0-8 and malformed) per 5 s
    const written = (await staleEvents()) - staleEventsBefore;
    const windows = Math.ceil((Date.now() - startedAt) / 5_000) + 1;
    console.log(`fuzz webhooks: ${written} stale-write Events written in ${windows} windows of 5 s`);
    expect(written).toBeLessThanOrEqual(10 * windows);
    const [status, body] = await post(
      `/epochs/${CELL}`,
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'control',
          operation: 'UPDATE',
          resource: { group: '', resource: 'nodes' },
          options: { fieldManager: epochFieldManager(EPOCH) },
        },
      }),
    );
    expect([status, (body as any).response]).toEqual([200, { uid: 'control', allowed: true }]);
  });
});
