// Property-based fuzzing of the webhook's AdmissionReview handling (fast-check), against the
// real handler and a protected workload on the embedded cluster: three Ready pods under a
// PodProtector with minAvailable 3, so the quota refuses every one of their deletions.
// Thousands of generated bodies — garbage text and JSON, reviews with wrong kinds, versions,
// types and missing fields, odd operations and subresources, dry-run variants, and reviews of
// the protected pods mutated in every field that does not change what the quota judges —
// must get 200 with a well-formed AdmissionResponse carrying the request's uid, or 400; never
// a 500, never a crash or an unhandled rejection, never a bucket booked, and never an admitted
// deletion of a pod the quota refuses. Most cases go to the handler directly (as the listener
// would hand them on); a share goes through the HTTPS listener with an allowed client
// certificate. FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> scales it; FUZZ_CASES=<n> sets a floor
// per property (`npm run fuzz`: 10 000).
import { mkdtemp, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../lib/pki/certificates.js';
import { ANNOTATIONS } from '../../../lib/protection/types.js';
import { FUZZ_SEED, fuzzCases, fuzzReport, fuzzTimeout } from '../../trpc/test/fuzzInputs.js';
import { type ClientCert, issueClientCert } from './clientCerts.js';
import {
  baseConfig,
  bucketsOf,
  CELL,
  createFixturePods,
  createProtector,
  type Env,
  getProtector,
  markReady,
  startEnv,
} from './protectionHarness.js';
import { watchProcess } from '../../test/processWatch.js';

const NS = 'fuzz';
const GUARDED = ['guarded-0', 'guarded-1', 'guarded-2'];
const LABELS = { app: 'guarded' };
const KEY = `${NS}/guard`;
const SEED = FUZZ_SEED;
// (npm test: a few thousand; the time limits allow ~30x the unloaded time: CI shares 2 cores at load 25)
const CASES = { mutated: fuzzCases(2000), garbage: fuzzCases(2000), paths: fuzzCases(200) };

let env: Env;
let ca: CertificateAuthority;
let client: ClientCert;
let agent: https.Agent;
/** each pod as the API server would send it (JSON wire form) */
const wire = new Map<string, any>();
const watch = watchProcess();
const why = new Map<string, number>();
const tally = { cases: 0, http: 0, byStatus: new Map<number, number>(), refusedProtected: 0, ms: 0 };

beforeAll(async () => {
  watch.start();
  ca = await createCertificateAuthority('fuzz-apiserver-ca');
  client = await issueClientCert(ca, 'kube-apiserver-webhook-client');
  const dir = await mkdtemp(join(tmpdir(), 'palisade-fuzz-'));
  await writeFile(join(dir, 'ca.pem'), ca.certPem);
  env = await startEnv('protection-fuzz', [NS], {
    config: baseConfig({
      webhook: { port: 0, host: '127.0.0.1', register: false, clientAuth: { caFile: join(dir, 'ca.pem') } },
      generator: { enabled: false, workloadSelector: '' },
    }),
  });
  await createFixturePods(env.core, NS, GUARDED, LABELS);
  await createFixturePods(env.core, NS, ['free-0'], { app: 'free' });
  for (const n of [...GUARDED, 'free-0']) await markReady(env.core, NS, n, new Date(Date.now() - 60_000));
  await createProtector(env.custom, NS, 'guard', { minAvailable: 3, selector: LABELS });
  await eventually(
    () => env.protection.store.get(KEY)?.protector.status?.summary?.aggregatedAvailableReplicas === 3,
    'the webhook sees 3 available',
    15_000,
  );
  for (const n of [...GUARDED, 'free-0'])
    wire.set(n, JSON.parse(JSON.stringify(await env.core.readNamespacedPod({ namespace: NS, name: n }))));
  agent = new https.Agent({
    keepAlive: true,
    maxSockets: 4,
    ca: env.protection.webhook.caPem,
    cert: client.cert,
    key: client.key,
  });
}, 60_000);

afterAll(async () => {
  watch.stop();
  agent?.destroy();
  await env?.stop();
});

// ---- generators ------------------------------------------------------------------------

const huge = fc.integer({ min: 10_000, max: 400_000 }).map((n) => 'x'.repeat(n));
const oddString = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '..',
      '.',
      '/',
      'a/b',
      '%2F',
      '\u0000',
      'null',
      'guarded-0',
      NS,
      '💥',
    ),
  },
  { weight: 1, arbitrary: huge },
);
const wrongTyped = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  oddString,
);
const json = fc.jsonValue({ maxDepth: 3 });
/** usually `a`, rarely another type or absent (rare enough that most reviews stay well-formed) */
const mostly = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 40, arbitrary: a },
    { weight: 1, arbitrary: wrongTyped },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
const past = fc
  .integer({ min: 1_000, max: 10 * 365 * 86_400_000 })
  .map((ago) => new Date(Date.now() - ago).toISOString());
const anyTime = fc.oneof(
  { weight: 6, arbitrary: past },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 60_000, max: 86_400_000 })
      .map((n) => new Date(Date.now() + n).toISOString()),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 1, arbitrary: fc.constantFrom('yesterday', '2024-13-45T99:99:99Z', '0', 17, '2024-01-01') },
);
const criterionValue = fc.constantFrom('Available', 'Ready', 'Running', 'Scheduled', 'ready', '', 'Bogus');
const annotationKey = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.constantFrom('kubectl.kubernetes.io/last-applied-configuration', `${ANNOTATIONS.removeCellOnce}`),
);
const ownerReference = fc.record(
  {
    apiVersion: mostly(fc.constantFrom('apps/v1', 'v1', '')),
    kind: mostly(fc.constantFrom('ReplicaSet', 'StatefulSet', 'Node', '')),
    name: mostly(oddString),
    uid: mostly(oddString),
    controller: mostly(fc.boolean()),
    blockOwnerDeletion: mostly(fc.boolean()),
  },
  { requiredKeys: [] },
);
const condition = fc.record(
  {
    type: mostly(
      fc.constantFrom('Initialized', 'ContainersReady', 'DisruptionTarget', 'PodReadyToStartContainers'),
    ),
    status: mostly(fc.constantFrom('True', 'False', 'Unknown')),
    lastTransitionTime: anyTime,
    reason: fc.option(oddString, { nil: undefined }),
  },
  { requiredKeys: ['type', 'status'] },
);

/** What may change in a pod's copy; most of it leaves the quota's judgement as it is. */
const podMutation = fc.record({
  extraLabels: fc.dictionary(
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => k !== 'app'),
    fc.string({ maxLength: 20 }),
    { maxKeys: 4 },
  ),
  labels: fc.oneof(
    { weight: 12, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: fc.constant('drop-app' as const) },
    { weight: 1, arbitrary: wrongTyped.filter((v) => v !== null) },
  ),
  annotations: fc.dictionary(annotationKey, fc.oneof(fc.string({ maxLength: 20 }), huge), { maxKeys: 3 }),
  annotationsWrong: fc.oneof(
    { weight: 15, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: wrongTyped },
  ),
  criterion: fc.option(criterionValue, { nil: undefined }),
  force: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  ownerReferences: fc.option(fc.oneof(fc.array(ownerReference, { maxLength: 3 }), wrongTyped), {
    nil: undefined,
  }),
  finalizers: fc.option(fc.oneof(fc.array(oddString, { maxLength: 3 }), wrongTyped), { nil: undefined }),
  deletionTimestamp: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: anyTime },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
  deletionGracePeriodSeconds: fc.option(
    fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: -1, max: 60 }) },
      { weight: 1, arbitrary: wrongTyped },
    ),
    { nil: undefined },
  ),
  uid: fc.option(oddString, { nil: undefined }),
  name: fc.oneof(
    { weight: 20, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: oddString },
  ),
  namespace: fc.oneof(
    { weight: 20, arbitrary: fc.constant('keep' as const) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', null, 'default', 'kube-system') },
    { weight: 1, arbitrary: oddString },
  ),
  phase: fc.oneof(
    { weight: 20, arbitrary: fc.constant('Running') },
    { weight: 1, arbitrary: fc.constantFrom('Pending', 'Succeeded', 'Failed', 'Unknown', '', 'running') },
    { weight: 1, arbitrary: wrongTyped },
  ),
  ready: fc.oneof(
    { weight: 10, arbitrary: fc.constant('True') },
    { weight: 1, arbitrary: fc.constantFrom('False', 'Unknown', 'true', '') },
  ),
  readyTime: fc.oneof(
    { weight: 3, arbitrary: fc.constant('keep' as const) },
    { weight: 2, arbitrary: anyTime },
  ),
  readyFirst: fc.oneof(
    { weight: 10, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('False', 'True') },
  ),
  scheduled: fc.oneof(
    { weight: 12, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  extraConditions: fc.array(
    fc.oneof({ weight: 30, arbitrary: condition }, { weight: 1, arbitrary: wrongTyped }),
    {
      maxLength: 4,
    },
  ),
  conditionsWrong: fc.oneof(
    { weight: 20, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: wrongTyped },
  ),
  metadataWrong: fc.oneof(
    { weight: 30, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: wrongTyped },
  ),
  statusWrong: fc.oneof(
    { weight: 30, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: wrongTyped },
  ),
  extra: fc.dictionary(fc.string({ maxLength: 10 }), json, { maxKeys: 2 }),
});
type PodMutation = typeof podMutation extends fc.Arbitrary<infer T> ? T : never;

function mutatePod(base: any, m: PodMutation): any {
  const pod = structuredClone(base);
  const meta = pod.metadata;
  if (m.labels === 'keep') meta.labels = { ...meta.labels, ...m.extraLabels, ...LABELS };
  else if (m.labels === 'drop-app') meta.labels = { ...m.extraLabels };
  else meta.labels = m.labels;
  meta.annotations = {
    ...m.annotations,
    ...(m.criterion !== undefined ? { [ANNOTATIONS.healthCriterion]: m.criterion } : {}),
    ...(m.force ? { [ANNOTATIONS.forceDelete]: '' } : {}),
  };
  if (m.annotationsWrong !== undefined) meta.annotations = m.annotationsWrong;
  if (m.ownerReferences !== undefined) meta.ownerReferences = m.ownerReferences;
  if (m.finalizers !== undefined) meta.finalizers = m.finalizers;
  if (m.deletionTimestamp !== undefined) meta.deletionTimestamp = m.deletionTimestamp;
  if (m.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = m.deletionGracePeriodSeconds;
  if (m.uid !== undefined) meta.uid = m.uid;
  if (m.name !== 'keep') meta.name = m.name;
  if (m.namespace !== 'keep') meta.namespace = m.namespace;
  const conditions: any[] = pod.status.conditions.filter((c: any) => c.type !== 'Ready');
  const ready = pod.status.conditions.find((c: any) => c.type === 'Ready');
  const readyCond = {
    ...ready,
    status: m.ready,
    ...(m.readyTime !== 'keep' ? { lastTransitionTime: m.readyTime } : {}),
  };
  pod.status.conditions = [
    ...(m.readyFirst ? [{ type: 'Ready', status: m.readyFirst }] : []),
    ...(m.scheduled ? conditions : conditions.filter((c) => c.type !== 'PodScheduled')),
    ...m.extraConditions,
    readyCond,
  ];
  if (m.conditionsWrong !== undefined) pod.status.conditions = m.conditionsWrong;
  pod.status.phase = m.phase;
  Object.assign(pod, m.extra);
  if (m.metadataWrong !== undefined) pod.metadata = m.metadataWrong;
  if (m.statusWrong !== undefined) pod.status = m.statusWrong;
  return pod;
}

const podResource = { group: '', version: 'v1', resource: 'pods' };
const resource = fc.oneof(
  { weight: 25, arbitrary: fc.constant(podResource) },
  {
    weight: 1,
    arbitrary: fc.record({
      group: mostly(fc.constantFrom('', 'apps', 'policy')),
      version: mostly(fc.constantFrom('v1', 'v1beta1', '')),
      resource: mostly(fc.constantFrom('pods', 'pod', 'Pods', 'deployments', 'nodes')),
    }),
  },
  { weight: 1, arbitrary: wrongTyped },
);
const dryRun = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 10, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: wrongTyped },
);
const options = fc.oneof(
  fc.constant(undefined),
  fc.constant({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' }),
  fc.constant({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] }),
  fc.constant({ dryRun: 'All' }),
  fc.constant({ gracePeriodSeconds: 0, propagationPolicy: 'Background' }),
  fc.record({ dryRun: fc.array(fc.constantFrom('All', 'None', ''), { maxLength: 2 }) }),
  json,
);
const userInfo = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ username: 'mallory', groups: ['system:authenticated'] }) },
  {
    weight: 10,
    arbitrary: fc.record(
      { username: mostly(oddString), groups: mostly(fc.array(oddString, { maxLength: 2 })) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: wrongTyped },
);
const uid = fc.oneof(
  { weight: 20, arbitrary: fc.uuid() },
  { weight: 6, arbitrary: oddString.filter((s) => s.length > 0) },
  { weight: 1, arbitrary: wrongTyped },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const evictionObject = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.record(
      {
        apiVersion: mostly(fc.constantFrom('policy/v1', 'policy/v1beta1')),
        kind: mostly(fc.constant('Eviction')),
        metadata: mostly(
          fc.record(
            {
              name: mostly(oddString),
              annotations: mostly(
                fc.dictionary(
                  fc.oneof(annotationKey, fc.constant(ANNOTATIONS.healthCriterion)),
                  fc.oneof(criterionValue, fc.string({ maxLength: 10 })),
                  { maxKeys: 3 },
                ),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
        deleteOptions: fc.oneof(options, fc.constant({ dryRun: ['All'] })),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: wrongTyped },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** a review of a protected (or other) pod, mutated */
const mutatedReview = fc
  .record({
    target: fc.constantFrom(...GUARDED, ...GUARDED, 'free-0', 'missing-pod'),
    op: fc.constantFrom('delete', 'delete', 'evict'),
    apiVersion: fc.oneof(
      { weight: 30, arbitrary: fc.constant('admission.k8s.io/v1') },
      { weight: 1, arbitrary: fc.constantFrom('admission.k8s.io/v1beta1', 'v1', '') },
      { weight: 1, arbitrary: wrongTyped },
    ),
    kind: fc.oneof(
      { weight: 30, arbitrary: fc.constant('AdmissionReview') },
      { weight: 1, arbitrary: fc.constantFrom('AdmissionResponse', 'admissionreview', 'Pod') },
    ),
    uid,
    resource,
    operation: fc.oneof(
      { weight: 25, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('DELETE', 'CREATE', 'UPDATE', 'CONNECT', 'delete', '') },
      { weight: 1, arbitrary: wrongTyped },
    ),
    subResource: fc.oneof(
      { weight: 25, arbitrary: fc.constant('keep' as const) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(undefined, '', 'status', 'eviction', 'binding', 'ephemeralcontainers'),
      },
      { weight: 1, arbitrary: wrongTyped },
    ),
    name: fc.oneof(
      { weight: 25, arbitrary: fc.constant('keep' as const) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: oddString },
    ),
    namespace: fc.oneof(
      { weight: 25, arbitrary: fc.constant('keep' as const) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'default') },
      { weight: 1, arbitrary: oddString },
    ),
    userInfo,
    dryRun,
    options,
    pod: podMutation,
    eviction: evictionObject,
    extra: fc.dictionary(fc.string({ maxLength: 10 }), json, { maxKeys: 2 }),
    requestWrong: fc.oneof(
      { weight: 40, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: wrongTyped },
    ),
  })
  .map((g) => {
    const base = wire.get(g.target) ?? wire.get('guarded-0');
    const oldObject = mutatePod(
      g.target === 'missing-pod' ? { ...base, metadata: { ...base.metadata, name: 'missing-pod' } } : base,
      g.pod,
    );
    const evict = g.op === 'evict';
    const request: any = {
      uid: g.uid,
      kind: { group: '', version: 'v1', kind: evict ? 'Eviction' : 'Pod' },
      resource: g.resource,
      operation: g.operation ?? (evict ? 'CREATE' : 'DELETE'),
      userInfo: g.userInfo,
      object: evict ? g.eviction : null,
      oldObject: evict ? null : oldObject,
      dryRun: g.dryRun,
      options: g.options,
      ...g.extra,
    };
    if (g.subResource === 'keep') {
      if (evict) request.subResource = 'eviction';
    } else request.subResource = g.subResource;
    if (g.name !== 'keep') request.name = g.name;
    else request.name = g.target;
    if (g.namespace !== 'keep') request.namespace = g.namespace;
    else request.namespace = NS;
    return {
      apiVersion: g.apiVersion,
      kind: g.kind,
      request: g.requestWrong === undefined ? request : g.requestWrong,
    };
  });

/** bodies that are not reviews at all */
const garbage = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  json.map((v) => JSON.stringify(v)),
  fc.constantFrom('', '{', '[]', 'null', '{"apiVersion":', '\u0000\u0001', '{"request":{}}'),
  huge.map((s) => `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"${s}"`),
  fc
    .record(
      {
        apiVersion: mostly(fc.constant('admission.k8s.io/v1')),
        kind: mostly(fc.constant('AdmissionReview')),
        request: json,
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
);

/** a well-formed DELETE review of a guarded pod, as the API server sends it */
async function forgedLike(pod: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'odd-path',
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: pod,
      namespace: NS,
      operation: 'DELETE',
      userInfo: { username: 'mallory' },
      oldObject: wire.get(pod),
    },
  };
}

// ---- the oracle ------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Would the quota refuse this deletion? Said only when the review plainly asks to delete or
 * evict one of the guarded pods as it is: selected by the protector, not terminating, not
 * forced, Running, scheduled, and Ready since a time in the past. (3 available, minAvailable
 * 3: every criterion's count is at the floor.) Anything else makes no claim.
 */
function quotaRefuses(body: unknown): boolean {
  if (!isObj(body) || body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview')
    return false;
  const q = body.request;
  if (!isObj(q) || typeof q.uid !== 'string' || q.uid === '' || !isObj(q.resource)) return false;
  if (q.resource.group !== '' || q.resource.resource !== 'pods') return false;
  if (q.operation === 'CREATE' && q.subResource === 'eviction')
    return q.namespace === NS && GUARDED.includes(q.name) && isObj(q.object);
  if (q.operation !== 'DELETE' || q.subResource) return false;
  const pod = q.oldObject;
  if (!isObj(pod) || !isObj(pod.metadata) || !isObj(pod.status)) return false;
  const ns = pod.metadata.namespace || q.namespace;
  if (ns !== NS || !isObj(pod.metadata.labels) || pod.metadata.labels.app !== 'guarded') return false;
  if (pod.metadata.deletionTimestamp != null) return false;
  if (isObj(pod.metadata.annotations) && ANNOTATIONS.forceDelete in pod.metadata.annotations) return false;
  if (pod.status.phase !== 'Running' || !Array.isArray(pod.status.conditions)) return false;
  const conditions = pod.status.conditions;
  const ready = conditions.find((c: unknown) => isObj(c) && c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (!conditions.some((c: unknown) => isObj(c) && c.type === 'PodScheduled' && c.status === 'True'))
    return false;
  const t = ready.lastTransitionTime;
  return !(typeof t === 'string' && Date.parse(t) > Date.now());
}

/** fast-check's report, cut short: counterexamples may hold strings of 400 000 characters */
function reporter<T>(out: fc.RunDetails<T>) {
  if (!out.failed) return;
  const cut = (t: string) => t.replace(/(.)\1{200,}/g, (run, c) => `${c.repeat(20)}…(${run.length} × ${c})…`);
  const cause = out.errorInstance instanceof Error ? `\n\nCaused by: ${out.errorInstance.message}` : '';
  throw new Error(cut(`${fc.defaultReportMessage(out) ?? 'property failed'}${cause}`));
}

// ---- running a case --------------------------------------------------------------------

function viaListener(
  text: string,
  path = `/admission/${CELL}?timeout=10s`,
  method = 'POST',
): Promise<[number, unknown]> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${env.protection.webhook.url}${path}`,
      { method, agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const t = Buffer.concat(chunks).toString('utf8');
          resolve([
            res.statusCode ?? 0,
            res.headers['content-type'] === 'application/json' ? JSON.parse(t) : t,
          ]);
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer in 10 s: ${method} ${path}`)));
    req.end(text);
  });
}

async function webhookWrites() {
  const m = await env.protection.metrics.statusWrites.get();
  return m.values.filter((v) => v.labels.writer === 'webhook').reduce((n, v) => n + v.value, 0);
}

/** One case: the answer is well-formed, refuses what the quota refuses, and books nothing. */
async function check(text: string, parsedBody: unknown, http: boolean) {
  const started = performance.now();
  const [status, body] = http ? await viaListener(text) : await env.protection.review(text, CELL, 10_000);
  tally.ms += performance.now() - started;
  tally.cases++;
  if (http) tally.http++;
  tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
  if (process.env.FUZZ_DEBUG && status === 400) {
    const k = String(body)
      .replace(/"[^"]*"/g, '"…"')
      .slice(0, 90);
    why.set(k, (why.get(k) ?? 0) + 1);
  }
  const shown = () =>
    `status ${status}: ${String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 300)}`;
  if (status === 200) {
    const uidSent = (parsedBody as any)?.request?.uid;
    const r = (body as any)?.response;
    expect(body, shown()).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(typeof r?.allowed, shown()).toBe('boolean');
    expect(r.uid, shown()).toBe(uidSent);
    if (!r.allowed) {
      expect(typeof r.status?.code, shown()).toBe('number');
      expect(typeof r.status?.message, shown()).toBe('string');
    }
  } else {
    expect(status, shown()).toBe(400);
    expect(String(body), shown()).toMatch(/^(malformed AdmissionReview: |error parsing JSON body: )/);
  }
  if (quotaRefuses(parsedBody)) {
    tally.refusedProtected++;
    const admitted = status === 200 && (body as any).response.allowed === true;
    expect(admitted, `a deletion the quota refuses was admitted: ${text.slice(0, 2000)}`).toBe(false);
  }
  // nothing is ever booked: every deletion of a guarded pod is at the floor
  expect(bucketsOf(env.protection.store.get(KEY)?.protector, CELL)).toEqual([]);
}

describe('fuzzing the AdmissionReview handler (fast-check)', () => {
  it(
    'mutated reviews of protected pods: well-formed answers, never an admission the quota refuses',
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(mutatedReview, fc.integer({ min: 0, max: 9 }), async (review, lane) => {
          const text = JSON.stringify(review);
          await check(text, JSON.parse(text), lane === 0);
        }),
        { numRuns: CASES.mutated, seed: SEED, reporter },
      );
      expect(tally.refusedProtected).toBeGreaterThan(CASES.mutated / 6);
      fuzzReport(
        'webhook /admission/<cell>: reviews of protected pods',
        CASES.mutated,
        performance.now() - started,
        `${tally.refusedProtected} the quota refuses`,
      );
    },
    fuzzTimeout(CASES.mutated, 150),
  );

  it(
    'bodies that are not reviews: 400, never a crash',
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(garbage, fc.integer({ min: 0, max: 9 }), async (text, lane) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          await check(text, parsed, lane === 0);
        }),
        { numRuns: CASES.garbage, seed: SEED, reporter },
      );
      fuzzReport(
        'webhook /admission/<cell>: bodies that are not reviews',
        CASES.garbage,
        performance.now() - started,
      );
    },
    fuzzTimeout(CASES.garbage, 100),
  );

  it(
    'odd paths and methods through the listener: 404 (or a judged review), never a crash',
    async () => {
      const segment = fc.oneof(
        fc.constantFrom(
          CELL,
          encodeURIComponent(CELL),
          '',
          '%',
          '%E0%A4%A',
          '%ZZ',
          '..',
          '%2F',
          'other-cell',
        ),
        fc.string({ maxLength: 12 }).map(encodeURI),
      );
      const path = fc.oneof(
        fc
          .tuple(segment, fc.constantFrom('', '?timeout=10s', '?timeout=abc', '/x'))
          .map(([c, q]) => `/admission/${c}${q}`),
        fc.constantFrom('/', '/admission', '/admission/', '/metrics', '//admission/x', '/ADMISSION/x'),
      );
      const review = JSON.stringify(await forgedLike('guarded-0'));
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(path, fc.constantFrom('POST', 'POST', 'GET', 'PUT'), async (p, method) => {
          const [status, body] = await viaListener(review, p, method);
          const shown = `${method} ${p}: ${status} ${String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 200)}`;
          tally.cases++;
          tally.http++;
          tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
          expect([200, 404], shown).toContain(status);
          if (status === 200) expect((body as any).response.allowed, shown).toBe(false);
        }),
        { numRuns: CASES.paths, seed: SEED, reporter },
      );
      fuzzReport('webhook listener: paths and methods', CASES.paths, performance.now() - started);
    },
    fuzzTimeout(CASES.paths, 1500),
  );

  it('afterwards: no bucket, no webhook write, estimated == aggregated, no unhandled rejection', async () => {
    expect(await webhookWrites()).toBe(0);
    const p = await getProtector(env.custom, NS, 'guard');
    expect(bucketsOf(p, CELL)).toEqual([]);
    expect(p.status.summary.aggregatedAvailableReplicas).toBe(3);
    expect(p.status.summary.estimatedAvailableReplicas).toBe(3);
    watch.expectClean();
    // the pods are all still there: nothing here deletes anything
    for (const n of GUARDED)
      expect(
        (await env.core.readNamespacedPod({ namespace: NS, name: n })).metadata?.deletionTimestamp,
      ).toBeUndefined();
    if (process.env.FUZZ_DEBUG) console.log([...why].sort((a, b) => b[1] - a[1]).slice(0, 25));
    console.log(
      `fuzz: ${tally.cases} cases (${tally.http} through the TLS listener), ${tally.refusedProtected} the quota refuses, statuses ${JSON.stringify(Object.fromEntries(tally.byStatus))}, ${(tally.ms / 1000).toFixed(1)} s in the handler`,
    );
  });
});
