// Property-based fuzzing (fast-check) of every tRPC procedure over real HTTP, through the
// request gate, on one embedded cluster (a StatefulSet with an RWO volume, a protected
// Deployment, NodeFences, console Events to audit) and one console. The procedures are enumerated from the app router,
// so a new one is fuzzed as soon as it has a generator (and this file fails until it has one).
// Each case is a generated input — well-typed with hostile values, or anything at all — sent by
// one of the demo users, the cluster admin, a ServiceAccount that may read one namespace only,
// nobody or a forged token. Every answer must be JSON with a known tRPC code (never a 500); an
// input the procedure's schema refuses gets 400 BAD_REQUEST naming the fields; an answer is about
// what was asked (the uid of the object of that name); a viewer never changes anything and no
// refused or invalid call changes the cluster (nodes and their infrastructure, pods, namespaces,
// NodeFences, VolumeAttachments, the console's Events). The mutations that can act
// (actions.perform, infra.act) are fuzzed only with inputs that fail validation or RBAC, or as
// dry runs; one deliberate control case at the end shows a real change would be seen. Also: the
// transport (methods, paths, batches, malformed input, sizes). socket.io's events and the routes
// outside tRPC are fuzzed in server/test/fuzzConsole.int.test.ts.
// FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> scales it; FUZZ_CASES=<n> sets a floor per boundary
// (`npm run fuzz`: 10 000).
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSOLE_COMPONENT,
  guardedActionEvent,
  simulatedFaultEvent,
} from '../../../lib/console/actionEvents.js';
import { BODY_LIMITS } from '../../../lib/auth/gate.js';
import { auditMessage } from '../../../lib/guard/audit.js';
import { withAuditSeal } from '../../../lib/guard/auditSeal.js';
import { microTime } from '../../../lib/protection/buckets.js';
import { eventually, serviceAccountReady } from '../../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../../sim/cluster.js';
import { parseScenario } from '../../../sim/scenario/load.js';
import { durationsYaml } from '../../../sim/test/clusterHarness.js';
import { FENCE_API } from '../../actions/live.js';
import { type Console, startConsole } from '../../console.js';
import { consoleVerbs } from '../../kube/infra.js';
import { clustersFromKubeconfig } from '../../kube/kubeconfig.js';
import { DEFAULT_LEADER_ELECTION as CONTROLLER_LEASE } from '../../runtime/manager.js';
import { tokenOf } from '../../test/client.js';
import { appRouter } from '../router.js';
import {
  ABSENT,
  anyInput,
  BODY_SIZE,
  field,
  jsonText,
  objectInput,
  objectOf,
  PATH_STRINGS,
  QUERY_SIZE,
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  reporter,
  type Size,
} from './fuzzInputs.js';
import { watchProcess } from '../../test/processWatch.js';

const SEED = FUZZ_SEED;
/** cases per procedure in npm test (fuzzCases scales them); the mutations get more */
const QUERY_CASES = 400;
const MUTATION_CASES = 600;

const CLUSTER = 'palisade-embedded';
const NS = 'shop';
/** AwaitingApproval: approving or cancelling it would act */
const OPEN_FENCE = 'a1-3';
/** Cancelled: the guard refuses both */
const DONE_FENCE = 'a1-2';
const POLICY = 'fuzz-manual';
/** a ServiceAccount bound to palisade-viewer in namespace shop only */
const LIMITED = 'fuzz-limited';

// the node lifecycle is slowed down: on two busy cores a late heartbeat must not taint a node
// (and evict its pods) in the middle of a run that asserts nothing changes
const SCENARIO = `
name: trpc-fuzz
${durationsYaml({
  nodeMonitorGracePeriod: '120s',
  leaseDuration: '120s',
  leaseRenewInterval: '1s',
  nodeStatusUpdate: '2s',
  defaultToleration: '600s',
  forceDetachTimeout: '600s',
})}
nodes:
  cpu: "4"
  memory: 16Gi
  zones:
    - name: zone-a
      racks: [{ name: a1, count: 3 }]
storageClasses:
  - name: san-rwo
    bindingMode: WaitForFirstConsumer
workloads:
  - kind: StatefulSet
    name: web
    namespace: ${NS}
    replicas: 1
    volume: { storageClass: san-rwo, size: 1Gi, accessMode: ReadWriteOnce }
    terminationGracePeriodSeconds: 5
  - kind: Deployment
    name: api
    namespace: ${NS}
    replicas: 2
    protect: true
`;

type Who = 'viewer' | 'operator' | 'admin' | 'root' | 'limited' | 'anonymous' | 'forged';
const WRITERS = new Set<Who>(['operator', 'admin', 'root']);
const READ_ONE_NAMESPACE = new Set<Who>(['limited']);

interface Caller {
  who: Who;
  /** the Authorization header, if any */
  header?: string;
}

/** What the cluster holds, by name, so an answer can be checked against the object asked for. */
interface World {
  nodes: string[];
  nodeUids: Map<string, string>;
  /** "ns/name" -> uid */
  pods: Map<string, string>;
  pvs: string[];
  attachments: Map<string, string>;
  fences: Map<string, string>;
  /** "ns/name" */
  protectors: string[];
  /** the console's Events (audit rows): uid -> the Event's namespace */
  audit: Map<string, string>;
  users: Record<Exclude<Who, 'anonymous' | 'forged'>, string>;
}

let dir: string;
let cluster: EmbeddedCluster;
let c: Console;
let core: k8s.CoreV1Api;
let custom: k8s.CustomObjectsApi;
let storage: k8s.StorageV1Api;
let tokens: Record<Exclude<Who, 'anonymous' | 'forged'>, string>;
let world: World;
let baseline: State;
let agent: http.Agent;
const watch = watchProcess();

beforeAll(async () => {
  watch.start();
  dir = await mkdtemp(join(tmpdir(), 'palisade-trpc-fuzz-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(SCENARIO, 'tRPC fuzz'),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  storage = cluster.kc.makeApiClient(k8s.StorageV1Api);
  for (const ns of ['default', NS]) await serviceAccountReady(core, ns);
  // another console runs the controllers: this one shows the fences but never moves them on
  // (nor does its generator write the protector: the test does, below)
  await cluster.kc.makeApiClient(k8s.CoordinationV1Api).createNamespacedLease({
    namespace: CONTROLLER_LEASE.namespace,
    body: {
      metadata: { name: CONTROLLER_LEASE.name },
      spec: {
        holderIdentity: 'another-console',
        leaseDurationSeconds: 3600,
        acquireTime: new k8s.V1MicroTime(),
        renewTime: new k8s.V1MicroTime(),
      },
    },
  });
  await createFences();
  await createIncident();
  const limited = await limitedToken();
  tokens = {
    viewer: cluster.users.viewer.token,
    operator: cluster.users.operator.token,
    admin: cluster.users.admin.token,
    root: tokenOf(cluster.kc),
    limited,
  };
  c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    protection: { webhook: { register: true } },
    // the history store (timeline, replay, the audit's records), in a temporary directory
    history: { location: { kind: 'temporary' }, retentionMs: 86_400_000 },
    // thousands of mutations a minute from one person, hundreds of forged tokens from one
    // client: the rate limits are not under test here (server/attacks/ tests them)
    auth: {
      limits: {
        signInPerMinute: 20,
        mutationsPerMinute: 1_000_000,
        failuresPerMinute: 1_000_000,
        failuresPerTokenPerMinute: 1_000_000,
        authenticationsPerUserPerMinute: 1_000_000,
      },
    },
  });
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  // written once the console's audit key is known: Palisade seals the records it writes
  await createAuditEvents(c.auth.keys.audit);
  // what the generator of the leading console would have made for the protected Deployment
  await custom.createNamespacedCustomObject({
    group: 'podseidon.kubewharf.io',
    version: 'v1alpha1',
    plural: 'podprotectors',
    namespace: NS,
    body: {
      apiVersion: 'podseidon.kubewharf.io/v1alpha1',
      kind: 'PodProtector',
      metadata: { name: 'deployment-api', namespace: NS },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'api' } } },
    },
  });
  agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  await eventually(
    ready,
    'three Ready pods in shop, the volume attached, a protector, all in the console',
    60_000,
  );
  world = await worldOf();
  baseline = await snapshot();
}, 120_000);

afterAll(async () => {
  watch.stop();
  agent?.destroy();
  await c?.stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** an Incident to export (incident.export answers NOT_FOUND for any other name) */
const INCIDENT = 'inc-20261130-045408';
/** its uid: the incident actions' target */
let incidentUid: string | undefined;
async function createIncident() {
  const made = await custom.createClusterCustomObject({
    group: 'palisade.dev',
    version: 'v1alpha1',
    plural: 'incidents',
    body: {
      apiVersion: 'palisade.dev/v1alpha1',
      kind: 'Incident',
      metadata: { name: INCIDENT },
      spec: { title: 'fuzz', severity: 'SEV3', startedAt: new Date().toISOString(), declaredBy: 'palisade' },
    },
  });
  incidentUid = (made as { metadata?: { uid?: string } }).metadata?.uid;
}

async function createFences() {
  await custom.createClusterCustomObject({
    group: FENCE_API.group,
    version: FENCE_API.version,
    plural: 'fencepolicies',
    body: {
      apiVersion: `${FENCE_API.group}/${FENCE_API.version}`,
      kind: 'FencePolicy',
      metadata: { name: POLICY },
      spec: {
        nodeSelector: { matchLabels: { 'fuzz.palisade.dev/never': 'true' } },
        approval: 'Manual',
        agent: { type: 'power' },
      },
    },
  });
  for (const [node, phase] of [
    [OPEN_FENCE, 'AwaitingApproval'],
    [DONE_FENCE, 'Cancelled'],
  ]) {
    const uid = (await core.readNode({ name: node })).metadata!.uid!;
    await custom.createClusterCustomObject({
      ...FENCE_API,
      body: {
        apiVersion: `${FENCE_API.group}/${FENCE_API.version}`,
        kind: 'NodeFence',
        metadata: { name: node },
        spec: { nodeName: node, policy: POLICY },
      },
    });
    await custom.patchClusterCustomObjectStatus(
      {
        ...FENCE_API,
        name: node,
        body: { status: { phase, nodeUid: uid, conditions: [], attempts: [], steps: [] } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }
}

/** The console's own Events, sealed as it writes them: rows for actions.audit. */
async function createAuditEvents(auditKey: Buffer) {
  const at = new Date(Date.now() - 60_000);
  const odd = 'stuck 💥 for "20" min;\nvendor: {{x}} <b>dead</b> \u202e';
  const events = [
    guardedActionEvent({
      reason: 'PalisadeForceDelete',
      action: 'forceDeletePod',
      involved: { kind: 'Pod', apiVersion: 'v1', namespace: NS, name: 'web-0' },
      message: auditMessage({
        what: 'force-deleted pod shop/web-0',
        overridden: true,
        reasons: ['node not fenced'],
        by: 'operator',
        why: odd,
      }),
      overridden: true,
      by: 'operator',
      via: 'token',
      why: odd,
      at,
    }),
    simulatedFaultEvent({
      verb: 'partition',
      node: 'a1-1',
      by: 'ä-admin; in protected mode',
      at,
      mode: 'protected',
    }),
    {
      ...simulatedFaultEvent({ verb: 'heal', node: 'a1-2', by: 'viewer', at, mode: 'normal' }),
      message: 'Palisade console: a message no row is made of',
    },
  ];
  for (const body of events)
    await core.createNamespacedEvent({
      namespace: body.metadata!.namespace!,
      // a metav1.MicroTime: six fractional digits (server/trpc/infra.ts writes it the same way)
      body: withAuditSeal(
        { ...body, eventTime: microTime(at.getTime()) as unknown as k8s.V1MicroTime },
        at.getTime(),
        auditKey,
      ),
    });
}

/** A ServiceAccount that may read (palisade-viewer) in namespace shop only, and its token. */
async function limitedToken(): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: LIMITED } } });
  await cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: NS,
    body: {
      metadata: { name: LIMITED },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'palisade-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: LIMITED, namespace: NS }],
    },
  });
  const r = await core.createNamespacedServiceAccountToken({
    namespace: NS,
    name: LIMITED,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return r.status!.token;
}

async function ready() {
  const pods = (await core.listNamespacedPod({ namespace: NS })).items;
  const readyPods = pods.filter((p) =>
    p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'),
  );
  const attached = (await storage.listVolumeAttachment()).items.some((a) => a.status?.attached);
  const conn = c.clusters.get(CLUSTER)!;
  return (
    readyPods.length === 3 &&
    conn.cache.eventList().filter((e) => e.source === CONSOLE_COMPONENT).length === 3 &&
    attached &&
    (c.protection?.store.all().length ?? 0) > 0 &&
    pods.every((p) => conn.cache.pod(NS, p.metadata!.name!)) &&
    conn.informers.volumeAttachments.size > 0
  );
}

async function worldOf(): Promise<World> {
  const [nodes, pods, pvs, vas, fences, events] = await Promise.all([
    core.listNode(),
    core.listPodForAllNamespaces(),
    core.listPersistentVolume(),
    storage.listVolumeAttachment(),
    custom.listClusterCustomObject({ ...FENCE_API }) as Promise<{ items: k8s.KubernetesObject[] }>,
    core.listEventForAllNamespaces(),
  ]);
  const who = await Promise.all(
    (Object.keys(tokens) as (keyof typeof tokens)[]).map(
      async (k) => [k, (await c.auth.tokens.check(tokens[k])) as { ok: boolean; identity?: any }] as const,
    ),
  );
  return {
    nodes: nodes.items.map((n) => n.metadata!.name!),
    nodeUids: new Map(nodes.items.map((n) => [n.metadata!.name!, n.metadata!.uid!])),
    pods: new Map(pods.items.map((p) => [`${p.metadata!.namespace}/${p.metadata!.name}`, p.metadata!.uid!])),
    pvs: pvs.items.map((v) => v.metadata!.name!),
    attachments: new Map(vas.items.map((a) => [a.metadata!.name!, a.metadata!.uid!])),
    fences: new Map(fences.items.map((f) => [f.metadata!.name!, f.metadata!.uid!])),
    protectors: c
      .protection!.store.all()
      .map((e) => `${e.protector.metadata.namespace}/${e.protector.metadata.name}`),
    audit: new Map(
      events.items
        .filter((e) => e.source?.component === CONSOLE_COMPONENT)
        .map((e) => [e.metadata!.uid!, e.metadata!.namespace!]),
    ),
    users: Object.fromEntries(
      who.map(([k, r]) => [k, r.identity?.principals.get(CLUSTER)?.username ?? '?']),
    ) as World['users'],
  };
}

// ---- what must not change -----------------------------------------------------------------

type State = Awaited<ReturnType<typeof snapshot>>;

/** What a refused or invalid call must leave as it was, read from the API and the infrastructure. */
async function snapshot() {
  const [nodes, pods, namespaces, fences, vas, events] = await Promise.all([
    core.listNode(),
    core.listPodForAllNamespaces(),
    core.listNamespace(),
    custom.listClusterCustomObject({ ...FENCE_API }) as Promise<{
      items: (k8s.KubernetesObject & { spec?: unknown })[];
    }>,
    storage.listVolumeAttachment(),
    core.listEventForAllNamespaces(),
  ]);
  const sorted = (xs: string[]) => xs.sort();
  return {
    nodes: nodes.items.map((n) => ({
      name: n.metadata!.name,
      uid: n.metadata!.uid,
      unschedulable: n.spec?.unschedulable ?? false,
      taints: sorted((n.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)),
      infra: { ...cluster.infra.node(n.metadata!.name!) },
    })),
    pods: sorted(pods.items.map((p) => `${p.metadata!.namespace}/${p.metadata!.name} ${p.metadata!.uid}`)),
    namespaces: sorted(namespaces.items.map((n) => `${n.metadata!.name} ${n.metadata!.uid}`)),
    fences: fences.items.map((f) => ({ name: f.metadata!.name, spec: f.spec })),
    attachments: sorted(
      vas.items.map(
        (a) =>
          `${a.metadata!.name} ${a.metadata!.uid} ${a.spec.nodeName} ${a.spec.source.persistentVolumeName} ${a.status?.attached}`,
      ),
    ),
    consoleEvents: sorted(
      events.items
        .filter(
          (e) => e.source?.component === CONSOLE_COMPONENT || e.reportingComponent === CONSOLE_COMPONENT,
        )
        .map((e) => `${e.metadata!.namespace}/${e.metadata!.name} ${e.reason}`),
    ),
  };
}

// ---- HTTP ---------------------------------------------------------------------------------

interface Answer {
  status: number;
  text: string;
  body?: any;
}

/** Node's own limit on a request's head: a longer URL gets 431 before the console sees it. */
const MAX_HEAD = 16 * 1024;

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  again = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: c.port,
        method,
        path,
        agent,
        headers: {
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      // a kept-alive socket the server closed (its 5 s idle timeout) just as this request went
      // out on it: Node's documented race, before the request reached the server; once more on
      // a new socket (a pause of 5 s between cases happens at load 15)
      if (!again && req.reusedSocket && e.code === 'ECONNRESET')
        resolve(send(method, path, headers, body, true));
      else reject(e);
    });
    req.setTimeout(20_000, () =>
      req.destroy(new Error(`no answer in 20 s: ${method} ${path.slice(0, 200)}`)),
    );
    req.end(body);
  });
}

interface Sent {
  method: 'GET' | 'POST';
  path: string;
  /** the input's JSON text, undefined for none */
  text?: string;
}

function wire(procPath: string, type: 'query' | 'mutation', input: unknown): Sent {
  const text = jsonText(input);
  if (type === 'query')
    return {
      method: 'GET',
      path: `/api/trpc/${procPath}${text === undefined ? '' : `?input=${encodeURIComponent(text)}`}`,
      text,
    };
  return { method: 'POST', path: `/api/trpc/${procPath}`, text };
}

function call(s: Sent, caller: Caller): Promise<Answer> {
  return send(
    s.method,
    s.path,
    {
      ...(caller.header !== undefined ? { authorization: caller.header } : {}),
      ...(s.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    },
    s.method === 'POST' ? (s.text ?? '') : undefined,
  );
}

// ---- the procedures -----------------------------------------------------------------------

interface Parser {
  safeParse(v: unknown): { success: true; data: any } | { success: false; error: { issues: Issue[] } };
}
interface Issue {
  path?: readonly (PropertyKey | { key: PropertyKey })[];
  message: string;
}
interface Procedure {
  _def: { type: 'query' | 'mutation' | 'subscription'; inputs: Parser[] };
}

const PROCEDURES = (appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def
  .procedures;

/** The fields and messages the server's error formatter names (server/trpc/trpc.ts). */
function fieldsOf(issues: Issue[]) {
  return issues.map((i) => ({
    field: (i.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.') || '(input)',
    message: i.message,
  }));
}

/** tRPC's codes this API may answer; INTERNAL_SERVER_ERROR is never one of them. */
const KNOWN_CODES = [
  'BAD_REQUEST',
  'PARSE_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_SUPPORTED',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_REQUESTS',
];

// ---- generators ---------------------------------------------------------------------------

/** How hostile a generator is: mild ones send well-formed inputs naming real (or missing) objects. */
type Mode = Size & { mild: boolean };
type Gen = (w: World, s: Mode) => fc.Arbitrary<unknown>;

/** The whole input: as built, or (unless mild) sometimes anything at all. */
const input = (shaped: fc.Arbitrary<unknown>, s: Mode) => (s.mild ? shaped : anyInput(shaped, s));

const GUARDED = [
  'forceDeletePod',
  'detachVolume',
  'removeOutOfServiceTaint',
  'approveFence',
  'cancelFence',
  'fenceNode',
  'pauseFencePolicy',
  'resumeFencePolicy',
  'cordonNode',
  'uncordonNode',
  'drainNode',
  'evictPod',
  'declareIncident',
  'takeIncidentCommand',
  'postIncidentUpdate',
  'setIncidentSeverity',
  'resolveIncident',
];

function pools(w: World, s: Mode) {
  const f = <T>(a: fc.Arbitrary<T>) => (s.mild ? a : field(a, s));
  /** a name: mostly of a real object (or one that does not exist), often one a URL path reads as more */
  const named = (...real: string[]) =>
    s.mild
      ? fc.constantFrom(...real)
      : fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...real) },
          { weight: 1, arbitrary: fc.constantFrom('.', '..') },
          { weight: 1, arbitrary: fc.constantFrom(...PATH_STRINGS) },
        );
  const podNames = [...w.pods.keys()]
    .filter((k) => k.startsWith(`${NS}/`))
    .map((k) => k.slice(NS.length + 1));
  return {
    f,
    cluster: f(
      fc.oneof(
        { weight: 12, arbitrary: fc.constant(CLUSTER) },
        { weight: 1, arbitrary: fc.constant('elsewhere') },
      ),
    ),
    node: f(named(...w.nodes, 'a1-9')),
    namespace: f(named(NS, NS, NS, 'default', 'kube-system', 'nowhere')),
    pod: f(named(...podNames, 'web-9')),
    pv: f(named(...w.pvs, 'pv-nope')),
    attachment: f(named(...w.attachments.keys(), 'va-nope')),
    fence: f(named(OPEN_FENCE, DONE_FENCE, 'a1-1')),
    policy: f(named('no-such-policy')),
    incident: f(named(INCIDENT, 'inc-20200101-000000')),
    severity: f(fc.constantFrom('SEV1', 'SEV2', 'SEV3', 'SEV4', 'sev1', '')),
    protectorNs: f(named(...w.protectors.map((p) => p.split('/')[0]), 'default')),
    protectorName: f(named(...w.protectors.map((p) => p.split('/')[1]), 'nope')),
    reason: f(
      fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('   ', 'the node is dead', 'x'.repeat(500), 'x'.repeat(501)),
      ),
    ),
    confirm: f(fc.oneof(fc.constantFrom(...podNames, ...w.nodes, OPEN_FENCE), fc.string({ maxLength: 10 }))),
    action: (name: string) =>
      f(
        fc.oneof(
          { weight: 20, arbitrary: fc.constant(name) },
          { weight: 1, arbitrary: fc.constantFrom(...GUARDED) },
        ),
      ),
  };
}

/** A guarded action's target, as preview, perform and access.actions take it. */
function target(w: World, s: Mode, extra: Record<string, fc.Arbitrary<unknown>> = {}) {
  const p = pools(w, s);
  return fc.oneof(
    objectInput(
      {
        action: p.action('forceDeletePod'),
        cluster: p.cluster,
        namespace: p.namespace,
        name: p.pod,
        ...extra,
      },
      s,
    ),
    objectInput(
      { action: p.action('detachVolume'), cluster: p.cluster, attachment: p.attachment, ...extra },
      s,
    ),
    objectInput(
      { action: p.action('removeOutOfServiceTaint'), cluster: p.cluster, node: p.node, ...extra },
      s,
    ),
    objectInput({ action: p.action('approveFence'), cluster: p.cluster, fence: p.fence, ...extra }, s),
    objectInput(
      { action: p.action('cancelFence'), cluster: p.cluster, fence: p.fence, reason: p.reason, ...extra },
      s,
    ),
    objectInput(
      { action: p.action('fenceNode'), cluster: p.cluster, node: p.node, reason: p.reason, ...extra },
      s,
    ),
    objectInput(
      {
        action: p.action('pauseFencePolicy'),
        cluster: p.cluster,
        policy: p.policy,
        reason: p.reason,
        ...extra,
      },
      s,
    ),
    objectInput({ action: p.action('resumeFencePolicy'), cluster: p.cluster, policy: p.policy, ...extra }, s),
    objectInput(
      { action: p.action('takeIncidentCommand'), cluster: p.cluster, incident: p.incident, ...extra },
      s,
    ),
    objectInput(
      {
        action: p.action('declareIncident'),
        cluster: p.cluster,
        severity: p.severity,
        reason: p.reason,
        ...extra,
      },
      s,
    ),
    objectInput(
      {
        action: p.action('postIncidentUpdate'),
        cluster: p.cluster,
        incident: p.incident,
        reason: p.reason,
        ...extra,
      },
      s,
    ),
    objectInput(
      {
        action: p.action('setIncidentSeverity'),
        cluster: p.cluster,
        incident: p.incident,
        severity: p.severity,
        ...extra,
      },
      s,
    ),
    objectInput(
      {
        action: p.action('resolveIncident'),
        cluster: p.cluster,
        incident: p.incident,
        reason: p.reason,
        ...extra,
      },
      s,
    ),
    objectInput({ action: p.action('cordonNode'), cluster: p.cluster, node: p.node, ...extra }, s),
    objectInput({ action: p.action('uncordonNode'), cluster: p.cluster, node: p.node, ...extra }, s),
    objectInput(
      { action: p.action('drainNode'), cluster: p.cluster, node: p.node, reason: p.reason, ...extra },
      s,
    ),
    objectInput(
      {
        action: p.action('evictPod'),
        cluster: p.cluster,
        namespace: p.namespace,
        name: p.pod,
        reason: p.reason,
        ...extra,
      },
      s,
    ),
    objectInput(
      {
        action: p.f(fc.constantFrom('simulatedFault', 'deleteNamespace', 'FORCEDELETEPOD', '', 'cordon')),
        cluster: p.cluster,
        name: p.pod,
        node: p.node,
        ...extra,
      },
      s,
    ),
  );
}

/** What perform takes besides the target: each field often left out, so many submissions are valid. */
function submission(w: World, s: Mode) {
  const p = pools(w, s);
  /** mild: a valid value or none; else also values past the limits or of another type */
  const optional = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
    fc.oneof(
      { weight: 5, arbitrary: valid },
      { weight: 4, arbitrary: fc.constant(ABSENT) },
      ...(s.mild
        ? []
        : [
            { weight: 2, arbitrary: invalid },
            { weight: 1, arbitrary: p.f(valid) },
          ]),
    );
  const uids = [...w.pods.values(), ...w.fences.values(), ...w.attachments.values()];
  return {
    confirm: optional(
      fc.oneof(
        fc.constantFrom(...w.pods.keys()).map((k) => k.split('/')[1]),
        fc.constantFrom(...w.nodes, OPEN_FENCE),
        fc.string({ maxLength: 10 }),
      ),
      fc.constant('x'.repeat(254)),
    ),
    reason: optional(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.constantFrom('the node is dead', 'x'.repeat(500)),
      ),
      fc.constantFrom('', '   ', 'x'.repeat(501)),
    ),
    dryRun: optional(fc.boolean(), fc.constantFrom('true', 1, 'yes', null)),
    expect: optional(
      objectInput(
        {
          uid: optional(fc.oneof(fc.constantFrom(...uids), fc.uuid()), fc.constant('u'.repeat(129))),
          resourceVersion: optional(fc.constantFrom('1', '0', '999999999'), fc.constant('9'.repeat(65))),
        },
        s,
      ),
      fc.constantFrom('uid', [], 7),
    ),
  };
}

/** Every procedure's inputs. A procedure without an entry here fails the first test. */
const GENERATORS: Record<string, Gen> = {
  'clusters.list': (_w, s) => input(fc.constant(ABSENT), s),
  'protection.list': (_w, s) => input(fc.constant(ABSENT), s),
  'protection.decisions': (_w, s) => input(fc.constant(ABSENT), s),
  'nodes.get': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ cluster: p.cluster, name: p.node }, s), s);
  },
  'nodes.events': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ cluster: p.cluster, name: p.node }, s), s);
  },
  'pods.get': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ cluster: p.cluster, namespace: p.namespace, name: p.pod }, s), s);
  },
  'infra.act': (w, s) => {
    const p = pools(w, s);
    const verb = p.f(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...consoleVerbs) },
        { weight: 1, arbitrary: fc.constantFrom('reset', 'storage-fence', 'PARTITION', '') },
      ),
    );
    return input(objectInput({ cluster: p.cluster, node: p.node, verb, confirm: p.confirm }, s), s);
  },
  'protection.get': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ namespace: p.protectorNs, name: p.protectorName }, s), s);
  },
  'protection.podIndex': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'protection.preview': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ cluster: p.cluster, namespace: p.namespace, pod: p.pod }, s), s);
  },
  'fencing.list': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'leadership.state': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'incident.view': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'incident.list': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'incident.export': (w, s) => {
    const p = pools(w, s);
    const name = p.f(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(INCIDENT) },
        { weight: 1, arbitrary: fc.constantFrom('inc-20000101-000000', 'x', '', '../inc') },
      ),
    );
    const format = p.f(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('json', 'markdown') },
        { weight: 1, arbitrary: fc.constantFrom('pdf', 1, null) },
      ),
    );
    return input(objectInput({ cluster: p.cluster, name, format }, s), s);
  },
  'volumes.list': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'volumes.get': (w, s) => {
    const p = pools(w, s);
    return input(objectInput({ cluster: p.cluster, name: p.pv }, s), s);
  },
  'instanceIds.list': (w, s) => input(objectInput({ cluster: pools(w, s).cluster }, s), s),
  'instanceIds.get': (w, s) => {
    const p = pools(w, s);
    const kind = p.f(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('Deployment', 'StatefulSet', 'Job') },
        { weight: 1, arbitrary: fc.constantFrom('ReplicaSet', 'deployment', '') },
      ),
    );
    const name = p.f(fc.constantFrom('api', 'web', 'nope'));
    return input(objectInput({ cluster: p.cluster, namespace: p.namespace, kind, name }, s), s);
  },
  'actions.preview': (w, s) => input(target(w, s), s),
  'actions.perform': (w, s) => input(target(w, s, submission(w, s)), s),
  'actions.audit': (w, s) => {
    const p = pools(w, s);
    /** an optional filter: often none; unless mild, also values just past its limits */
    const opt = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
      fc.oneof(
        { weight: 3, arbitrary: p.f(valid) },
        { weight: 3, arbitrary: fc.constant(ABSENT) },
        ...(s.mild ? [] : [{ weight: 1, arbitrary: invalid }]),
      );
    return input(
      objectInput(
        {
          cluster: p.cluster,
          action: opt(
            fc.constantFrom(...GUARDED, 'simulation'),
            fc.constantFrom('simulatedFault', 'SIMULATION'),
          ),
          outcome: opt(fc.constantFrom('safe', 'overridden', 'simulation'), fc.constant('refused')),
          user: opt(
            fc.constantFrom('viewer', 'operator', 'ä-admin; in protected mode', 'x'.repeat(256)),
            fc.constant('x'.repeat(257)),
          ),
          text: opt(
            fc.oneof(
              fc.string({ maxLength: 20 }),
              fc.constantFrom('💥', 'WEB-0', '  ', 'partition', '{{x}}'),
            ),
            fc.constant('t'.repeat(201)),
          ),
          limit: opt(
            fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(1, 2)),
            fc.constantFrom(0, -1, 5001, 1.5),
          ),
        },
        s,
      ),
      s,
    );
  },
  'history.timeline': (w, s) => {
    const p = pools(w, s);
    const now = Date.now();
    const time = (offsetMs: number) =>
      p.f(
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(new Date(now + offsetMs).toISOString()) },
          { weight: 1, arbitrary: fc.constantFrom('yesterday', '2026-13-45T00:00:00Z', '', '1e999') },
        ),
      );
    const opt = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
      fc.oneof(
        { weight: 3, arbitrary: p.f(valid) },
        { weight: 3, arbitrary: fc.constant(ABSENT) },
        ...(s.mild ? [] : [{ weight: 1, arbitrary: invalid }]),
      );
    return input(
      objectInput(
        {
          cluster: p.cluster,
          from: time(-3_600_000),
          to: time(60_000),
          kinds: opt(
            fc.subarray(['node-condition', 'fault', 'fence-step', 'guarded-action', 'warning-event']),
            fc.constantFrom(['gossip'], 'fault', [1]),
          ),
          q: opt(
            fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('a1-1', 'WEB', '%', '_')),
            fc.constant('q'.repeat(201)),
          ),
          limit: opt(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(0, -1, 5001, 1.5)),
        },
        s,
      ),
      s,
    );
  },
  'history.replay': (w, s) => {
    const p = pools(w, s);
    const at = p.f(
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(new Date().toISOString()) },
        { weight: 1, arbitrary: fc.constantFrom('now', '2026-02-30T25:00:00Z', '') },
      ),
    );
    return input(objectInput({ cluster: p.cluster, at }, s), s);
  },
  'access.actions': (w, s) => {
    const p = pools(w, s);
    const targets = fc.oneof(
      { weight: 8, arbitrary: fc.array(target(w, s), { maxLength: 6 }) },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 50, max: 52 })
          .map((n) => Array.from({ length: n }, () => ({ action: 'simulatedFault', node: 'a1-1' }))),
      },
    );
    return input(objectInput({ cluster: p.cluster, targets: p.f(targets) }, s), s);
  },
};

const callers = (): fc.Arbitrary<Caller> => {
  const named = (who: keyof typeof tokens): Caller => ({ who, header: `Bearer ${tokens[who]}` });
  const forged = fc.oneof(
    fc.constantFrom(
      'Bearer not-a-token',
      'Bearer null',
      'Bearer ',
      'Bearer',
      'bearer x',
      'Basic dmlld2VyOnZpZXdlcg==',
      'Token abc',
      `Bearer ${tokens.viewer}x`,
      `Bearer ${tokens.viewer.slice(1)}`,
      `Bearer ${tokens.admin.toUpperCase()}`,
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
    ),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((t) => `Bearer ${t}`),
  );
  return fc.oneof(
    {
      weight: 16,
      arbitrary: fc
        .constantFrom('viewer', 'operator', 'admin', 'root')
        .map((w) => named(w as keyof typeof tokens)),
    },
    { weight: 3, arbitrary: fc.constant(null).map(() => named('limited')) },
    { weight: 1, arbitrary: fc.constant<Caller>({ who: 'anonymous' }) },
    { weight: 1, arbitrary: forged.map((header): Caller => ({ who: 'forged', header })) },
  );
};

/** The input as the server sees it after JSON (NaN and undefined gone, 1e999 Infinity). */
function seenBy(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * The mutations that can really act stay harmless: a valid perform by someone RBAC lets act
 * becomes a dry run; a valid infra.act on a real node goes to the viewer (whom RBAC refuses).
 */
function tame(path: string, caller: Caller, input: unknown): { caller: Caller; input: unknown } {
  if (!WRITERS.has(caller.who)) return { caller, input };
  const parser = PROCEDURES[path]._def.inputs[0];
  const seen = seenBy(jsonText(input)) as Record<string, unknown>;
  if (!parser?.safeParse(seen).success) return { caller, input };
  if (path === 'actions.perform' && seen.dryRun !== true)
    return { caller, input: objectOf([...Object.entries(input as object), ['dryRun', true]]) };
  if (path === 'infra.act' && world.nodes.includes(seen.node as string))
    return { caller: { who: 'viewer', header: `Bearer ${tokens.viewer}` }, input };
  return { caller, input };
}

// ---- the oracle ---------------------------------------------------------------------------

interface Tally {
  cases: number;
  invalid: number;
  ok: number;
  byStatus: Map<number, number>;
  ms: number;
}
const tallies = new Map<string, Tally>();
const tallyOf = (path: string) => {
  let t = tallies.get(path);
  if (!t) tallies.set(path, (t = { cases: 0, invalid: 0, ok: 0, byStatus: new Map(), ms: 0 }));
  return t;
};

/** The uid of the object a guarded action names, if it exists. */
function targetUid(w: World, t: any): string | undefined {
  switch (t.action) {
    case 'forceDeletePod':
    case 'evictPod':
      return w.pods.get(`${t.namespace}/${t.name}`);
    case 'detachVolume':
      return w.attachments.get(t.attachment);
    case 'removeOutOfServiceTaint':
    case 'fenceNode':
    case 'cordonNode':
    case 'uncordonNode':
    case 'drainNode':
      return w.nodeUids.get(t.node);
    case 'takeIncidentCommand':
    case 'postIncidentUpdate':
    case 'setIncidentSeverity':
    case 'resolveIncident':
      return t.incident === INCIDENT ? incidentUid : undefined;
    // a fence only announced (no NodeFence of that name): cancelling it is about the Node
    case 'cancelFence':
      return w.fences.get(t.fence) ?? w.nodeUids.get(t.fence);
    default:
      return w.fences.get(t.fence);
  }
}
const targetName = (t: any): string =>
  t.action === 'forceDeletePod' || t.action === 'evictPod'
    ? t.name
    : (t.attachment ?? t.node ?? t.incident ?? t.fence);

/** A declaration names the Incident it would create (after this moment), which has no uid yet. */
function expectNewIncident(data: any, shown: () => string) {
  expect(data.target, shown()).toMatchObject({
    kind: 'Incident',
    name: expect.stringMatching(/^inc-\d{8}-\d{6}$/),
    uid: '',
  });
}

/** What a successful answer must say: about the object asked for, within what the caller may do. */
function checkSuccess(path: string, who: Who, input: any, data: any, shown: () => string) {
  const mayReadAll = !READ_ONE_NAMESPACE.has(who);
  switch (path) {
    case 'clusters.list':
      expect(data.find((x: any) => x.id === CLUSTER)?.user?.name, shown()).toBe(
        world.users[who as keyof World['users']],
      );
      return;
    case 'nodes.get':
      expect(mayReadAll, `${shown()}: a person limited to ${NS} read a node`).toBe(true);
      expect(data.node.name, shown()).toBe(input.name);
      expect(world.nodes, shown()).toContain(input.name);
      return;
    case 'nodes.events':
    case 'volumes.list':
    case 'fencing.list':
      expect(mayReadAll, `${shown()}: a person limited to ${NS} read cluster-wide objects`).toBe(true);
      return;
    case 'leadership.state':
      // the controller Lease is in kube-system: never for a person limited to one namespace
      expect(mayReadAll, `${shown()}: a person limited to ${NS} read the controller Lease`).toBe(true);
      // another console holds it (set up above): this one watches
      expect([data.elected, data.leading, data.holder], shown()).toEqual([true, false, 'another-console']);
      expect(data.cluster, shown()).toBe(input.cluster);
      // the Lease read live, and its holder's term in the history
      expect(data.leaseRead, shown()).toMatchObject({ state: 'read', holder: 'another-console' });
      expect(data.history.terms, shown()).toContainEqual(
        expect.objectContaining({ epoch: 0, holder: 'another-console' }),
      );
      // the Events on the Lease only for whoever may list Events there; nothing from them otherwise
      expect(['read', 'forbidden'], shown()).toContain(data.events.state);
      if (data.events.state === 'forbidden')
        expect([data.history.stale, data.history.staleTotal], shown()).toEqual([[], 0]);
      return;
    case 'volumes.get':
      expect(mayReadAll, shown()).toBe(true);
      expect(data.row.pv, shown()).toBe(input.name);
      return;
    case 'pods.get':
      expect(mayReadAll || input.namespace === NS, shown()).toBe(true);
      expect([data.pod.namespace, data.pod.name, data.pod.uid], `${shown()}: not the pod asked for`).toEqual([
        input.namespace,
        input.name,
        world.pods.get(`${input.namespace}/${input.name}`),
      ]);
      return;
    case 'protection.get':
      expect(mayReadAll || input.namespace === NS, shown()).toBe(true);
      expect(data.row.key, shown()).toBe(`${input.namespace}/${input.name}`);
      expect(world.protectors, shown()).toContain(data.row.key);
      return;
    case 'protection.podIndex':
      for (const key of Object.keys(data)) {
        expect(world.pods.has(key), shown()).toBe(true);
        if (!mayReadAll) expect(key.startsWith(`${NS}/`), shown()).toBe(true);
      }
      return;
    case 'protection.preview':
      // a dry run: only someone who may delete the pod, and only a pod that exists, is admitted
      if (data.admitted) {
        expect(WRITERS.has(who), `${shown()}: admitted for ${who}`).toBe(true);
        expect(world.pods.has(`${input.namespace}/${input.pod}`), `${shown()}: no such pod`).toBe(true);
      }
      return;
    case 'actions.preview':
      if (input.action === 'declareIncident') return expectNewIncident(data, shown);
      expect(data.target.name, shown()).toBe(targetName(input));
      expect(data.target.uid, `${shown()}: not the object asked for`).toBe(targetUid(world, input));
      return;
    case 'actions.perform':
      expect(WRITERS.has(who), `${shown()}: ${who} performed an action`).toBe(true);
      expect(data.dryRun, `${shown()}: acted for real`).toBe(true);
      if (input.action === 'declareIncident') return expectNewIncident(data, shown);
      expect(data.target.uid, `${shown()}: not the object asked for`).toBe(targetUid(world, input));
      return;
    case 'infra.act':
      throw new Error(`${shown()}: a simulated fault was carried out during the fuzz`);
    case 'access.actions':
      expect(data, shown()).toHaveLength(input.targets.length);
      // every target is a write: the viewer and the namespace reader may do none of them
      if (!WRITERS.has(who)) for (const a of data) expect(a.allowed, shown()).toBe(false);
      return;
    case 'actions.audit':
      expect(data.length, shown()).toBeLessThanOrEqual(input.limit);
      for (const row of data) {
        // a fence's own steps (from the history): only for whoever may list NodeFences
        if (row.action === 'fence') {
          expect(mayReadAll, `${shown()}: a person limited to ${NS} read a fence's steps`).toBe(true);
          continue;
        }
        // only the console's own Events, in namespaces whose Events the person may list
        expect(world.audit.has(row.uid), `${shown()}: not one of the console's Events`).toBe(true);
        if (!mayReadAll) expect(world.audit.get(row.uid), shown()).toBe(NS);
        if (input.action) expect(row.action, shown()).toBe(input.action);
        if (input.user) expect(row.by, shown()).toBe(input.user);
      }
      if (mayReadAll && !input.action && !input.user && !input.outcome && !input.text?.trim())
        expect(data.filter((r: any) => r.action !== 'fence').length, `${shown()}: a row is missing`).toBe(
          Math.min(2, input.limit - data.filter((r: any) => r.action === 'fence').length),
        );
      return;
    case 'history.timeline':
      // cluster-wide: never for a person limited to one namespace
      expect(mayReadAll, `${shown()}: a person limited to ${NS} read the timeline`).toBe(true);
      expect(data.entries.length, shown()).toBeLessThanOrEqual(input.limit ?? 1000);
      for (const e of data.entries) {
        expect(e.cluster, shown()).toBe(input.cluster);
        if (input.kinds?.length) expect(input.kinds, shown()).toContain(e.kind);
      }
      return;
    case 'incident.view':
      // cluster-wide (it lists nodes and pods): never for a person limited to one namespace
      expect(mayReadAll, `${shown()}: a person limited to ${NS} read the incident view`).toBe(true);
      for (const n of Object.values(data.situation)) expect(n, shown()).toBeGreaterThanOrEqual(0);
      for (const r of data.remediation) expect(world.nodes, shown()).toContain(r.node);
      return;
    case 'incident.list':
      // cluster-wide (it lists nodes and Incidents): never for a person limited to one namespace
      expect(mayReadAll, `${shown()}: a person limited to ${NS} listed the incidents`).toBe(true);
      for (const i of data) expect(i.name, shown()).toMatch(/^inc-\d{8}-\d{6}$/);
      return;
    case 'incident.export':
      // cluster-wide (it lists nodes): never for a person limited to one namespace
      expect(mayReadAll, `${shown()}: a person limited to ${NS} exported an incident`).toBe(true);
      expect(data.filename, shown()).toMatch(new RegExp(`^${input.name}\\.(json|md)$`));
      return;
    case 'history.replay':
      expect(mayReadAll, `${shown()}: a person limited to ${NS} replayed the nodes`).toBe(true);
      expect(data.cluster, shown()).toBe(input.cluster);
      expect(data.nodes.map((n: any) => n.node).sort(), shown()).toEqual([...world.nodes].sort());
      return;
    case 'instanceIds.list':
      for (const row of data.rows) if (!mayReadAll) expect(row.namespace, shown()).toBe(NS);
      return;
    case 'instanceIds.get':
      expect(mayReadAll || input.namespace === NS, shown()).toBe(true);
      expect(data.key, `${shown()}: not the workload asked for`).toBe(
        `${input.namespace}/${input.kind}/${input.name}`,
      );
      return;
    case 'protection.list':
    case 'protection.decisions':
      return;
    default:
      throw new Error(`no success oracle for ${path}`);
  }
}

/** One case: sent, answered, judged; the mutations also compared with the baseline state. */
async function runCase(path: string, type: 'query' | 'mutation', caller: Caller, input: unknown) {
  const t = tallyOf(path);
  const sent = wire(path, type, input);
  const started = performance.now();
  const a = await call(sent, caller);
  t.ms += performance.now() - started;
  t.cases++;
  t.byStatus.set(a.status, (t.byStatus.get(a.status) ?? 0) + 1);
  const shown = () =>
    `${sent.method} ${path} ${(sent.text ?? '(no input)').slice(0, 400)} as ${caller.who}: ${a.status} ${a.text.slice(0, 400)}`;
  const headLength = sent.path.length + (caller.header?.length ?? 0);
  if (headLength > MAX_HEAD) {
    expect(a.status, shown()).toBe(431);
    return;
  }
  // the gate's limit, before tRPC reads anything (a generated string can reach it now and then)
  if (sent.method === 'POST' && sent.text !== undefined && Buffer.byteLength(sent.text) > BODY_LIMITS.trpc) {
    expect([a.status, a.body?.code], shown()).toEqual([413, 'body_too_large']);
    return;
  }
  expect(a.body, `${shown()}: not JSON`).toBeDefined();
  expect(a.status, shown()).not.toBe(500);
  if (caller.who === 'anonymous' || caller.who === 'forged') {
    expect(a.status, shown()).toBe(401);
    expect(a.body, shown()).toMatchObject({ code: 'unauthenticated', error: expect.any(String) });
    return;
  }
  if (a.status === 200) expect(a.body, shown()).toHaveProperty('result');
  else {
    const e = a.body.error;
    expect(typeof e?.message, shown()).toBe('string');
    expect(KNOWN_CODES, shown()).toContain(e.data?.code);
    expect(e.data.httpStatus, shown()).toBe(a.status);
    expect(e.data.path, shown()).toBe(path);
  }
  const parser = PROCEDURES[path]._def.inputs[0];
  const seen = seenBy(sent.text);
  const parsed = parser?.safeParse(seen);
  if (sent.method === 'POST' && sent.text === undefined) {
    // an empty body is not JSON: tRPC says so, before any input is read
    t.invalid++;
    expect([a.status, a.body.error.data.code], shown()).toEqual([400, 'BAD_REQUEST']);
  } else if (parsed && !parsed.success) {
    t.invalid++;
    const issues = fieldsOf(parsed.error.issues);
    expect(a.status, shown()).toBe(400);
    expect(a.body.error.data.code, shown()).toBe('BAD_REQUEST');
    expect(a.body.error.data.issues, shown()).toEqual(issues);
    expect(a.body.error.message, shown()).toBe(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
  } else if (a.status === 200) {
    t.ok++;
    checkSuccess(path, caller.who, parsed?.data ?? seen, a.body.result.data, shown);
  } else {
    // a valid input is refused for what it asks, not for its form
    expect(a.body.error.data.code, shown()).not.toBe('BAD_REQUEST');
    if (
      (caller.who === 'viewer' || caller.who === 'limited') &&
      (path === 'actions.perform' || path === 'infra.act')
    )
      expect(['FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED', 'CONFLICT'], shown()).toContain(
        a.body.error.data.code,
      );
  }
  if (type === 'mutation') expect(await snapshot(), `${shown()}: the cluster changed`).toEqual(baseline);
}

// ---- the tests ----------------------------------------------------------------------------

describe('fuzzing every tRPC procedure (fast-check, over HTTP through the gate)', () => {
  it('every procedure of the app router has a generator, and every generator a procedure', () => {
    const paths = Object.keys(PROCEDURES).sort();
    expect(paths.length).toBeGreaterThan(10);
    expect(
      paths.filter((p) => !GENERATORS[p]),
      'procedures without a generator',
    ).toEqual([]);
    expect(
      Object.keys(GENERATORS).filter((p) => !PROCEDURES[p]),
      'generators without a procedure',
    ).toEqual([]);
  });

  for (const [path, proc] of Object.entries(PROCEDURES)) {
    const type = proc._def.type === 'mutation' ? 'mutation' : 'query';
    const runs = fuzzCases(type === 'mutation' ? MUTATION_CASES : QUERY_CASES);
    it(
      `${path} (${type}, ${runs} cases)`,
      async () => {
        const gen = GENERATORS[path];
        expect(gen, `no generator for ${path}`).toBeDefined();
        const size = type === 'query' ? QUERY_SIZE : BODY_SIZE;
        await fc.assert(
          fc.asyncProperty(
            callers(),
            fc.oneof(
              { weight: 3, arbitrary: gen(world, { ...size, mild: false }) },
              { weight: 1, arbitrary: gen(world, { ...size, mild: true }) },
            ),
            async (caller0, input0) => {
              const { caller, input } = tame(path, caller0, input0);
              await runCase(path, type, caller, input);
            },
          ),
          { numRuns: runs, seed: SEED, reporter },
        );
        // queries change nothing either
        expect(await snapshot()).toEqual(baseline);
      },
      fuzzTimeout(runs, 400),
    );
  }
});

// ---- the transport ------------------------------------------------------------------------

const QUERIES = () => Object.keys(PROCEDURES).filter((p) => PROCEDURES[p]._def.type === 'query');
const MUTATIONS = () => Object.keys(PROCEDURES).filter((p) => PROCEDURES[p]._def.type === 'mutation');

interface RawRequest {
  method: string;
  path: string;
  contentType?: string;
  body?: string;
}

/** Requests shaped like tRPC's but wrong in their method, path, query, batch, type or size. */
function rawRequests(): fc.Arbitrary<RawRequest> {
  const query = fc.constantFrom(...QUERIES());
  const mutation = fc.constantFrom(...MUTATIONS());
  const garbage = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '{',
      '[',
      '{"a":',
      'undefined',
      'NaN',
      "{'a':1}",
      '\u0000',
      '{"0":',
      '1e999',
      '""',
      'null',
    ),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  );
  const encoded = garbage.map(encodeURIComponent);
  const badPath = fc.constantFrom(
    'nope',
    'nodes',
    'nodes.get.x',
    'nodes.',
    '.nodes.get',
    'NODES.GET',
    '__proto__',
    'constructor',
    'toString',
    'clusters.__proto__',
    'nodes.get%00',
    '..%2Fauth%2Fsession',
    '',
    encodeURIComponent('💥'),
  );
  return fc.oneof(
    // a query by POST, a mutation by GET
    fc.tuple(query, garbage).map(([p, b]) => ({
      method: 'POST',
      path: `/api/trpc/${p}`,
      contentType: 'application/json',
      body: b,
    })),
    fc.tuple(mutation, encoded).map(([p, q]) => ({ method: 'GET', path: `/api/trpc/${p}?input=${q}` })),
    // no such procedure
    fc
      .tuple(badPath, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'))
      .map(([p, m]) => ({
        method: m,
        path: `/api/trpc/${p}`,
        ...(m === 'GET' || m === 'HEAD' || m === 'OPTIONS'
          ? {}
          : { contentType: 'application/json', body: '{}' }),
      })),
    // ?input= that is not JSON, or twice
    fc.tuple(query, encoded).map(([p, q]) => ({ method: 'GET', path: `/api/trpc/${p}?input=${q}` })),
    fc
      .tuple(query, encoded, encoded)
      .map(([p, a, b]) => ({ method: 'GET', path: `/api/trpc/${p}?input=${a}&input=${b}` })),
    fc
      .tuple(query, encoded)
      .map(([p, q]) => ({ method: 'GET', path: `/api/trpc/${p}?batch=${q}&input=${q}` })),
    // batches of queries, with odd inputs
    fc
      .tuple(
        fc.array(query, { minLength: 1, maxLength: 4 }),
        fc.oneof(
          encoded,
          fc.jsonValue({ maxDepth: 2 }).map((v) => encodeURIComponent(JSON.stringify({ 0: v, 1: v }))),
        ),
      )
      .map(([ps, q]) => ({ method: 'GET', path: `/api/trpc/${ps.join(',')}?batch=1&input=${q}` })),
    // mutation bodies that are not JSON, or of another type, or huge
    fc
      .tuple(
        mutation,
        garbage,
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          '',
        ),
      )
      .map(([p, b, t]) => ({
        method: 'POST',
        path: `/api/trpc/${p}`,
        contentType: t || undefined,
        body: b,
      })),
    // bodies of megabytes, and a URL longer than Node reads (rarer: each is costly)
    fc.oneof(
      fc.tuple(mutation, fc.constantFrom(1_000_000, 4_000_000)).map(([p, n]) => ({
        method: 'POST',
        path: `/api/trpc/${p}`,
        contentType: 'application/json',
        body: JSON.stringify({ cluster: CLUSTER, node: 'x'.repeat(n) }),
      })),
      query.map((p) => ({ method: 'GET', path: `/api/trpc/${p}?input=${'x'.repeat(MAX_HEAD + 10)}` })),
    ),
    // dot segments, which the gate's URL parsing resolves: the gate and the handler must agree
    fc
      .tuple(
        fc.constantFrom(
          '/healthz/%2e%2e',
          '/auth/%2E%2E',
          '/signin/%2e%2e',
          '/_next/static/%2e%2e/%2e%2e',
          '/socket.io/%2e%2e',
          '/api/trpc/%2e%2e/%2e%2e',
        ),
        fc.constantFrom(
          '/api/trpc/clusters.list',
          '/api/trpc/nodes.get?input=%7B%7D',
          '/metrics',
          '/healthz',
          '/socket.io/?EIO=4&transport=polling',
          '/nodes',
        ),
      )
      .map(([a, b]) => ({ method: 'GET', path: `${a}${b}` })),
  );
}

/** Would this body be a valid input to a mutation? Then it is not sent (it could act). */
function couldAct(r: RawRequest): boolean {
  const name = r.path.replace(/^\/api\/trpc\//, '').split('?')[0];
  const proc = PROCEDURES[name];
  if (proc?._def.type !== 'mutation' || r.method !== 'POST') return false;
  try {
    return proc._def.inputs[0]?.safeParse(JSON.parse(r.body ?? '')).success ?? true;
  } catch {
    return false;
  }
}

describe('the transport', () => {
  const cases = fuzzCases(600);
  it(
    'wrong methods, paths, batches, malformed or huge input: a JSON answer, never a 500, no change',
    async () => {
      const started = performance.now();
      const byStatus = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          rawRequests(),
          fc.constantFrom<Who>('viewer', 'admin', 'root', 'anonymous'),
          async (r, who) => {
            fc.pre(!couldAct(r));
            const auth: Record<string, string> =
              who === 'anonymous' ? {} : { authorization: `Bearer ${tokens[who as 'viewer']}` };
            const a = await send(
              r.method,
              r.path,
              { ...auth, ...(r.contentType ? { 'content-type': r.contentType } : {}) },
              r.body,
            );
            byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
            const shown = `${r.method} ${r.path.slice(0, 200)} [${r.contentType}] ${(r.body ?? '').slice(0, 100)} as ${who}: ${a.status} ${a.text.slice(0, 300)}`;
            expect(a.status, shown).not.toBe(500);
            if (r.path.length > MAX_HEAD) return void expect(a.status, shown).toBe(431);
            if (r.method === 'HEAD') return void expect(a.text, shown).toBe('');
            const route = new URL(r.path, 'http://x').pathname;
            if (!route.startsWith('/api/trpc/')) {
              // a dot segment took it elsewhere: the gate decided on that path, and so did the handler
              if (who === 'anonymous') expect([200, 302, 401], shown).toContain(a.status);
              if (a.status === 200) expect(route === '/healthz' || who !== 'anonymous', shown).toBe(true);
              return;
            }
            expect(a.body, `${shown}: not JSON`).toBeDefined();
            // the gate's own refusals (who is asking, what kind and size of body): {error, code}
            if (typeof a.body.error === 'string') {
              expect([401, 405, 413, 415], shown).toContain(a.status);
              return void expect(a.body, shown).toMatchObject({ code: expect.any(String) });
            }
            expect(who, `${shown}: past the gate without a token`).not.toBe('anonymous');
            const answers: any[] = Array.isArray(a.body) ? a.body : [a.body];
            for (const one of answers) {
              if ('result' in one) continue;
              expect(KNOWN_CODES, shown).toContain(one.error?.data?.code);
              expect(typeof one.error.message, shown).toBe('string');
            }
            expect([200, 207, 400, 404, 405, 413, 415], shown).toContain(a.status);
          },
        ),
        { numRuns: cases, seed: SEED, reporter },
      );
      expect(await snapshot()).toEqual(baseline);
      fuzzReport(
        'tRPC transport',
        cases,
        performance.now() - started,
        `statuses ${JSON.stringify(Object.fromEntries(byStatus))}`,
      );
    },
    fuzzTimeout(cases, 400),
  );
});

// ---- afterwards ---------------------------------------------------------------------------

describe('afterwards', () => {
  it('every procedure was fuzzed both ways, and answered both ways', () => {
    const rows = [...tallies].map(([path, t]) => ({
      path,
      cases: t.cases,
      invalid: t.invalid,
      ok: t.ok,
      ms: Math.round(t.ms),
      statuses: JSON.stringify(Object.fromEntries([...t.byStatus].sort((a, b) => a[0] - b[0]))),
    }));
    console.log(
      `fuzz: ${rows.reduce((n, r) => n + r.cases, 0)} tRPC cases\n${rows
        .map(
          (r) =>
            `  ${r.path.padEnd(22)} ${String(r.cases).padStart(5)} cases, ${String(r.invalid).padStart(4)} invalid, ${String(r.ok).padStart(4)} answered, ${String(r.ms).padStart(5)} ms  ${r.statuses}`,
        )
        .join('\n')}`,
    );
    for (const r of rows)
      fuzzReport(`tRPC ${r.path}`, r.cases, r.ms, `${r.invalid} invalid, ${r.ok} answered`);
    for (const path of Object.keys(PROCEDURES)) {
      const t = tallies.get(path);
      expect(t?.cases, path).toBeGreaterThan(0);
      if (PROCEDURES[path]._def.inputs.length) {
        expect(t!.invalid, `${path}: no invalid input was generated`).toBeGreaterThan(0);
        expect(t!.cases - t!.invalid, `${path}: no valid input was generated`).toBeGreaterThan(0);
      }
      // infra.act cannot succeed here by construction; everything else must sometimes answer
      if (path !== 'infra.act')
        expect(t!.ok, `${path}: never answered: is everything refused?`).toBeGreaterThan(0);
    }
  });

  it('control: a valid change by someone allowed is carried out, and the snapshot sees it', async () => {
    expect(await snapshot()).toEqual(baseline);
    const operator: Caller = { who: 'operator', header: `Bearer ${tokens.operator}` };
    const admin: Caller = { who: 'admin', header: `Bearer ${tokens.admin}` };
    // healing a node that is not partitioned changes nothing in the infrastructure; the Event is written
    const heal = await call(
      wire('infra.act', 'mutation', { cluster: CLUSTER, node: 'a1-1', verb: 'heal' }),
      operator,
    );
    expect(heal.status, heal.text).toBe(200);
    expect(heal.body.result.data).toMatchObject({ node: 'a1-1', verb: 'heal', recorded: true });
    const cancel = await call(
      wire('actions.perform', 'mutation', {
        action: 'cancelFence',
        cluster: CLUSTER,
        fence: OPEN_FENCE,
        reason: 'fuzz control case',
      }),
      admin,
    );
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.result.data).toMatchObject({ dryRun: false, recorded: true });
    const after = await snapshot();
    expect(after.consoleEvents).toHaveLength(baseline.consoleEvents.length + 2);
    expect(after.fences.find((f) => f.name === OPEN_FENCE)?.spec).toMatchObject({
      cancelRequested: { by: world.users.admin, reason: 'fuzz control case' },
    });
    // and nothing else moved
    expect({ ...after, consoleEvents: baseline.consoleEvents, fences: baseline.fences }).toEqual(baseline);
  });

  it('the process: no unhandled rejection, no uncaught exception, no polluted prototype, still serving', async () => {
    watch.expectClean();
    expect((await send('GET', '/readyz', {})).status).toBe(200);
    const list = await call(wire('clusters.list', 'query', undefined), {
      who: 'viewer',
      header: `Bearer ${tokens.viewer}`,
    });
    expect(list.status).toBe(200);
  });
});
