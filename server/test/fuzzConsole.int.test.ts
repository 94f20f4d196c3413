// Property-based fuzzing (fast-check) of the console's boundaries outside tRPC, on one embedded
// cluster and one console (another console leads: nothing here moves the cluster on its own):
//
// - socket.io: every client event the server handles (found on a live server socket, so a new
//   handler fails this file until it has a generator), with hostile payloads — wrong types,
//   prototype keys, binary, deep nesting, strings of a megabyte — from every kind of identity: the
//   demo users, the cluster admin, a ServiceAccount that may read one namespace, one that may read
//   nothing, and a browser session. The server answers every acknowledgement well-formed, keeps the
//   socket, joins a room that carries data only with the right (checked on the server's own room
//   table), and nothing a socket hears names an object its person may not list. Raw socket.io
//   frames (malformed packets, bogus binary attachments, huge ack ids, other namespaces) and
//   payloads past the size limit only ever cost their own connection.
// - HTTP routes outside tRPC: sign-in (/auth/*), the OIDC start and callback (with an issuer that
//   cannot be reached: what a forged callback can do without one), /instance-ids/acquire and
//   release, /metrics, /healthz, /readyz — hostile methods, Host, Origin, cookies, tokens, bodies
//   and sizes: never a 500, never a hang, a redirect only ever to this console, no session from a
//   refused sign-in, nothing readable without a credential, no change in the cluster.
//
// FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> scales it; FUZZ_CASES=<n> sets a floor per boundary.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ghostsRoom, room, terminationRoom } from '../../lib/console/protocol.js';
import { TOPICS, topicRoom } from '../../lib/console/live.js';
import { eventually, serviceAccountReady } from '../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { durationsYaml } from '../../sim/test/clusterHarness.js';
import { oidcSchema } from '../config/schema.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { DEFAULT_LEADER_ELECTION as CONTROLLER_LEASE } from '../runtime/manager.js';
import {
  extraKeys,
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  hostileString,
  objectOf,
  QUERY_SIZE,
  reporter,
  wrongTyped,
} from '../trpc/test/fuzzInputs.js';
import { tokenOf } from './client.js';
import { watchProcess } from './processWatch.js';

const CLUSTER = 'palisade-embedded';
const NS = 'shop';
const OTHER = 'vault';
const S = QUERY_SIZE;

const SCENARIO = `
name: console-fuzz
${durationsYaml({ nodeMonitorGracePeriod: '120s', leaseDuration: '120s', leaseRenewInterval: '1s', nodeStatusUpdate: '2s', defaultToleration: '600s' })}
nodes:
  cpu: "4"
  memory: 16Gi
  zones:
    - name: zone-a
      racks: [{ name: a1, count: 2 }]
workloads:
  - { kind: Deployment, name: api, namespace: ${NS}, replicas: 2 }
  - { kind: Deployment, name: keys, namespace: ${OTHER}, replicas: 1 }
`;

type Who = 'viewer' | 'operator' | 'admin' | 'root' | 'limited' | 'nobody' | 'session';
/** may list pods (and nodes, protectors) everywhere */
const READ_ALL = new Set<Who>(['viewer', 'operator', 'admin', 'root']);
/** may read namespace shop only */
const READ_SHOP = new Set<Who>(['limited', 'session']);

let dir: string;
let cluster: EmbeddedCluster;
let c: Console;
let core: k8s.CoreV1Api;
let tokens: Record<Exclude<Who, 'session'>, string>;
let sessionCookie: string;
/** pod uid -> namespace */
const podNamespace = new Map<string, string>();
let baseline: Awaited<ReturnType<typeof snapshot>>;
const watch = watchProcess();

beforeAll(async () => {
  watch.start();
  dir = await mkdtemp(join(tmpdir(), 'palisade-console-fuzz-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(SCENARIO, 'console fuzz'),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  for (const ns of ['default', NS, OTHER]) await serviceAccountReady(core, ns);
  // another console leads: this one runs no loop, so only the test changes the cluster
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
  const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    protection: { webhook: { register: false } },
    // an issuer nobody answers at: what a forged callback reaches without a provider
    auth: {
      limits: { signInPerMinute: 1_000_000, mutationsPerMinute: 1_000_000 },
      oidc: oidcSchema.parse({ issuer: 'http://127.0.0.1:9/', clientID: 'palisade', clientSecret: 'fuzz' }),
    },
  });
  for (const [ns, name, app] of [
    [NS, 'deployment-api', 'api'],
    [OTHER, 'deployment-keys', 'keys'],
  ])
    await custom.createNamespacedCustomObject({
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      plural: 'podprotectors',
      namespace: ns,
      body: {
        apiVersion: 'podseidon.kubewharf.io/v1alpha1',
        kind: 'PodProtector',
        metadata: { name },
        spec: { minAvailable: 1, selector: { matchLabels: { app } } },
      },
    });
  tokens = {
    viewer: cluster.users.viewer.token,
    operator: cluster.users.operator.token,
    admin: cluster.users.admin.token,
    root: tokenOf(cluster.kc),
    limited: await serviceAccountToken('fuzz-limited', 'palisade-viewer'),
    nobody: await serviceAccountToken('fuzz-nobody'),
  };
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  await eventually(
    async () => {
      const pods = (await core.listPodForAllNamespaces()).items.filter((p) =>
        [NS, OTHER].includes(p.metadata!.namespace!),
      );
      for (const p of pods) podNamespace.set(p.metadata!.uid!, p.metadata!.namespace!);
      const conn = c.clusters.get(CLUSTER)!;
      return (
        pods.length === 3 &&
        pods.every((p) => conn.cache.pod(p.metadata!.namespace!, p.metadata!.name!)) &&
        c.protection!.store.all().length === 2
      );
    },
    'three pods and two protectors, all in the console',
    60_000,
  );
  sessionCookie = await signIn(tokens.limited);
  baseline = await snapshot();
}, 120_000);

afterAll(async () => {
  watch.stop();
  await c?.stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A ServiceAccount in shop, bound to `role` there (none: no rights at all), and its token. */
async function serviceAccountToken(name: string, role?: string): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name } } });
  if (role)
    await cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: NS,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name, namespace: NS }],
      },
    });
  const r = await core.createNamespacedServiceAccountToken({
    namespace: NS,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return r.status!.token;
}

const host = () => `127.0.0.1:${c.port}`;
const own = () => `http://${host()}`;

async function signIn(token: string): Promise<string> {
  const a = await send(
    'POST',
    '/auth/token',
    { origin: own(), 'content-type': 'application/json' },
    JSON.stringify({ token }),
  );
  expect(a.status, a.text).toBe(200);
  return String(a.headers['set-cookie']?.[0] ?? '').split(';')[0];
}

/** What no refused call may change (the churn's own pods left out). */
async function snapshot() {
  const apps = cluster.kc.makeApiClient(k8s.AppsV1Api);
  const [ns, pods, deployments, secrets, protectors] = await Promise.all([
    core.listNamespace(),
    core.listPodForAllNamespaces(),
    apps.listDeploymentForAllNamespaces(),
    core.listSecretForAllNamespaces(),
    cluster.kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      plural: 'podprotectors',
    }) as Promise<{
      items: { metadata: { namespace: string; name: string }; spec: unknown }[];
    }>,
  ]);
  return {
    namespaces: ns.items.map((n) => n.metadata!.name).sort(),
    pods: pods.items
      .filter((p) => !p.metadata!.name!.startsWith('churn-'))
      .map((p) => `${p.metadata!.namespace}/${p.metadata!.name} ${p.metadata!.uid}`)
      .sort(),
    deployments: deployments.items
      .map(
        (d) =>
          `${d.metadata!.namespace}/${d.metadata!.name} ${JSON.stringify(d.metadata!.annotations ?? {})} ${d.spec?.replicas}`,
      )
      .sort(),
    secrets: secrets.items.map((s) => `${s.metadata!.namespace}/${s.metadata!.name}`).sort(),
    protectors: protectors.items
      .map((p) => `${p.metadata.namespace}/${p.metadata.name} ${JSON.stringify(p.spec)}`)
      .sort(),
  };
}

/**
 * Changes in both namespaces while the sockets listen (pods that come and go, protectors
 * touched), so there is something to leak if a filter or a room check were wrong.
 */
function churn(): () => Promise<void> {
  const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  let stop = false;
  let n = 0;
  const loop = (async () => {
    while (!stop) {
      const ns = n % 2 ? NS : OTHER;
      const name = `churn-${n++}`;
      await core
        .createNamespacedPod({
          namespace: ns,
          body: {
            metadata: { name },
            spec: { containers: [{ name: 'c', image: 'x' }], nodeSelector: { never: 'true' } },
          },
        })
        .then(() => core.deleteNamespacedPod({ namespace: ns, name, gracePeriodSeconds: 0 }))
        .catch(() => undefined);
      await custom
        .patchNamespacedCustomObject(
          {
            group: 'podseidon.kubewharf.io',
            version: 'v1alpha1',
            plural: 'podprotectors',
            namespace: ns,
            name: ns === NS ? 'deployment-api' : 'deployment-keys',
            body: { metadata: { annotations: { 'fuzz.palisade.dev/churn': String(n) } } },
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        )
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

// ---- HTTP --------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: c.port,
        method,
        path,
        headers: {
          host: host(),
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () =>
      req.destroy(new Error(`no answer in 20 s: ${method} ${path.slice(0, 200)}`)),
    );
    req.end(body);
  });
}

// ---- socket.io: what the server handles --------------------------------------------------

/** Every client event a server socket listens to, each with its acknowledgement (if any). */
const HANDLED: Record<string, { ack: boolean }> = {
  subscribe: { ack: true },
  unsubscribe: { ack: false },
  'live:watch': { ack: true },
  'live:unwatch': { ack: false },
  watchGhosts: { ack: true },
  unwatchGhosts: { ack: false },
  watchTermination: { ack: true },
  unwatchTermination: { ack: false },
};
/** names a client may try that nothing handles (socket.io-client refuses some itself) */
const UNHANDLED = [
  'snapshot',
  'delta',
  'health',
  'session:ended',
  'subscribe-error',
  'live:changed',
  'fencing:subscribe',
  'volumes:watch',
  'error',
  'connect',
  'disconnect',
  'disconnecting',
  'newListener',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '',
];

interface Emission {
  event: string;
  args: unknown[];
  ack: boolean;
}

const deep = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

function payloads(): fc.Arbitrary<unknown> {
  const uids = [...podNamespace.keys()];
  const clusterName = fc.oneof(
    { weight: 8, arbitrary: fc.constant(CLUSTER) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('no-such-cluster', `${CLUSTER}/pods`, '', 'audit', 'protection'),
    },
    { weight: 2, arbitrary: hostileString(S) },
    { weight: 1, arbitrary: wrongTyped(S).filter((v) => !(v && typeof v === 'object' && 'text' in v)) },
  );
  const field = <T>(a: fc.Arbitrary<T>) =>
    fc.oneof(
      { weight: 10, arbitrary: a },
      { weight: 2, arbitrary: hostileString(S) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(null, 0, true, [], {}) },
    );
  const request = fc
    .tuple(
      fc.record({
        cluster: clusterName,
        kind: field(fc.constantFrom('nodes', 'pods', 'pods', 'events', 'secrets')),
        topic: field(fc.constantFrom(...TOPICS, 'protection', 'secrets', 'live')),
        resumeFrom: field(fc.oneof(fc.nat(), fc.constantFrom(-1, 0.5, Number.MAX_SAFE_INTEGER, 2 ** 64))),
        epoch: field(fc.oneof(fc.string({ maxLength: 10 }), fc.constant('e'.repeat(65)))),
        podUid: field(fc.oneof(fc.constantFrom(...uids), fc.uuid(), fc.constant('u'.repeat(4096)))),
      }),
      fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extraKeys(S) }),
    )
    .map(([base, extra]) => objectOf([...Object.entries(base).filter(([, v]) => v !== undefined), ...extra]));
  return fc.oneof(
    { weight: 12, arbitrary: request },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom(
          null,
          Number.NaN,
          Number.POSITIVE_INFINITY,
          -0,
          new Uint8Array([0, 1, 255]),
          Buffer.from('binary'),
        ),
        hostileString(S),
        extraKeys(S).map(objectOf),
        fc.integer({ min: 2, max: 300 }).map(deep),
        fc.record({
          cluster: fc.constant(CLUSTER),
          kind: fc.constant('pods'),
          blob: fc.constant(Buffer.alloc(2048, 7)),
        }),
      ),
    },
  );
}

function emissions(): fc.Arbitrary<Emission> {
  const events = Object.keys(HANDLED);
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(fc.constantFrom(...events), payloads(), fc.boolean())
        .map(([event, p, ack]): Emission => ({ event, args: [p], ack: ack && HANDLED[event].ack })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom(...events, ...UNHANDLED), fc.string({ maxLength: 20 })),
          fc.array(payloads(), { maxLength: 3 }),
        )
        .map(([event, args]): Emission => ({ event, args, ack: false })),
    },
  );
}

function socketOf(who: Who, transports: ('websocket' | 'polling')[] = ['websocket']): Socket {
  return io(c.url, {
    path: '/socket.io',
    transports,
    forceNew: true,
    reconnection: false,
    extraHeaders:
      who === 'session'
        ? { cookie: sessionCookie, origin: own() }
        : { authorization: `Bearer ${tokens[who]}` },
  });
}

/** The server's own socket for a client socket. */
const serverSocket = (s: Socket) => c.io.sockets.sockets.get(s.id!);

/** The rooms this person may be in: the data rooms only with the right, never a name they made up. */
function checkRooms(who: Who, rooms: Set<string>, shown: string) {
  const signals = new Set(TOPICS.map((t) => topicRoom(t, CLUSTER)));
  const data = new Set([
    room(CLUSTER, 'nodes'),
    room(CLUSTER, 'pods'),
    `${CLUSTER}/health`,
    ghostsRoom(CLUSTER),
  ]);
  const watching = [...rooms].filter((r) => r.startsWith(terminationRoom(CLUSTER, '')));
  expect(watching.length, `${shown}: watching ${watching.length} terminations`).toBeLessThanOrEqual(16);
  for (const r of rooms) {
    if (r.length === 20 && !r.includes('/')) continue; // its own room: the socket id
    const termination = r.startsWith(terminationRoom(CLUSTER, ''));
    expect(
      signals.has(r) || data.has(r) || termination,
      `${shown}: in a room nobody should be able to name: ${r.slice(0, 100)}`,
    ).toBe(true);
    if (termination) {
      const uid = r.slice(terminationRoom(CLUSTER, '').length);
      const ns = podNamespace.get(uid);
      expect(uid.length, `${shown}: a room named by a uid of ${uid.length} characters`).toBeLessThanOrEqual(
        128,
      );
      // a pod the console does not know: only for whoever may list every pod
      if (!READ_ALL.has(who)) expect(ns, `${shown}: watching a pod of another namespace`).toBe(NS);
    }
    if (READ_ALL.has(who)) continue;
    const forbidden = [
      room(CLUSTER, 'nodes'),
      room(CLUSTER, 'pods'),
      ghostsRoom(CLUSTER),
      topicRoom('protection', CLUSTER),
    ];
    if (who === 'nobody') forbidden.push(`${CLUSTER}/health`);
    expect(forbidden.includes(r), `${shown}: ${who} joined ${r}`).toBe(false);
  }
}

interface Heard {
  event: string;
  args: any[];
}

/** Nothing heard names an object outside what the person may list. */
function checkHeard(who: Who, heard: Heard[], shown: string) {
  for (const h of heard) {
    const m = h.args[0];
    const what = `${shown}: ${who} heard ${h.event} ${JSON.stringify(h.args).slice(0, 300)}`;
    switch (h.event) {
      case 'snapshot':
      case 'delta':
        expect(m.cluster, what).toBe(CLUSTER);
        expect(who, what).not.toBe('nobody');
        if (!READ_ALL.has(who)) {
          expect(m.kind, what).toBe('pods');
          for (const p of m.items ?? m.upserts) expect(p.namespace, what).toBe(NS);
          for (const k of m.deletes ?? []) expect(k.startsWith(`${NS}/`), what).toBe(true);
        }
        break;
      case 'health':
        expect(m.cluster, what).toBe(CLUSTER);
        expect(who, what).not.toBe('nobody');
        break;
      case 'live:changed':
        expect(m.cluster, what).toBe(CLUSTER);
        expect(TOPICS, what).toContain(m.topic);
        expect(m.seq, what).toBe(m.fromSeq + 1);
        // only protection's signals name anything: the protectors the person may list
        if (m.topic !== 'protection') expect(m.keys, what).toBeUndefined();
        else {
          expect(who, what).not.toBe('nobody');
          if (!READ_ALL.has(who)) for (const k of m.keys) expect(k.startsWith(`${NS}/`), what).toBe(true);
        }
        break;
      case 'ghosts':
        expect(READ_ALL.has(who), what).toBe(true);
        break;
      case 'terminationStep':
        if (!READ_ALL.has(who)) expect(podNamespace.get(m.podUid), what).toBe(NS);
        break;
      case 'subscribe-error':
        expect(typeof m, what).toBe('string');
        break;
      default:
        throw new Error(`${what}: an event the server is not known to send`);
    }
  }
}

describe('socket.io', () => {
  it('every event the server handles has a generator, and every generator a handler', async () => {
    const s = socketOf('viewer');
    try {
      await eventually(() => s.connected, 'connected');
      const names = serverSocket(s)!
        .eventNames()
        .map(String)
        .filter((n) => n !== 'disconnect' && n !== 'disconnecting' && n !== 'error');
      expect([...new Set(names)].sort()).toEqual(Object.keys(HANDLED).sort());
    } finally {
      s.close();
    }
  });

  const cases = fuzzCases(250);
  it(
    `random events from every kind of identity (${cases} cases): well-formed answers, rooms only with the right, nothing leaked`,
    async () => {
      const started = performance.now();
      const whos = [...READ_ALL, ...READ_SHOP, 'nobody'] as Who[];
      const socks = new Map<Who, Socket>(whos.map((w) => [w, socketOf(w)]));
      const heard = new Map<Who, Heard[]>(whos.map((w) => [w, []]));
      const counts = { emits: 0, acks: 0, heard: 0, refused: 0 };
      const stopChurn = churn();
      try {
        for (const [w, s] of socks) s.onAny((event, ...args) => heard.get(w)!.push({ event, args }));
        await eventually(() => [...socks.values()].every((s) => s.connected), 'every socket connected');
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...whos),
            fc.array(emissions(), { minLength: 1, maxLength: 6 }),
            async (who, list) => {
              const s = socks.get(who)!;
              for (const e of list) {
                counts.emits++;
                if (!e.ack) {
                  try {
                    s.emit(e.event, ...e.args);
                  } catch (err) {
                    // socket.io-client refuses its own reserved names before sending anything
                    expect(String(err), e.event).toMatch(/reserved event name/);
                  }
                  continue;
                }
                const reply: any = await s.timeout(15_000).emitWithAck(e.event, e.args[0]);
                counts.acks++;
                const shown = `${who} ${e.event} ${JSON.stringify(e.args[0])?.slice(0, 300)} -> ${JSON.stringify(reply)?.slice(0, 300)}`;
                expect(typeof reply?.ok, shown).toBe('boolean');
                if (!reply.ok) {
                  counts.refused++;
                  expect(typeof reply.error, shown).toBe('string');
                }
                if (reply.ok && e.event === 'subscribe') expect(who, shown).not.toBe('nobody');
              }
              // a round trip: every emission before it has been handled
              const r: any = await s
                .timeout(15_000)
                .emitWithAck('subscribe', { cluster: 'no-such-cluster', kind: 'pods' });
              expect(r, who).toMatchObject({ ok: false, error: expect.stringContaining('unknown cluster') });
              expect(s.connected, `${who}: the server dropped the socket`).toBe(true);
              const shown = `${who} after ${list.map((e) => e.event).join(', ')}`;
              checkRooms(who, serverSocket(s)!.rooms, shown);
              for (const [w, h] of heard) {
                counts.heard += h.length;
                checkHeard(w, h.splice(0), shown);
              }
            },
          ),
          { numRuns: cases, seed: FUZZ_SEED, reporter },
        );
        // whatever was asked, the people limited to one namespace were told about it
        fuzzReport(
          'socket.io events',
          cases,
          performance.now() - started,
          `${counts.emits} emissions (${counts.acks} acknowledged, ${counts.refused} refused), ${counts.heard} messages heard`,
        );
      } finally {
        await stopChurn();
        for (const s of socks.values()) s.close();
      }
    },
    fuzzTimeout(cases, 1_500),
  );

  const rawCases = fuzzCases(100);
  it(
    `raw socket.io frames (${rawCases} cases): malformed packets cost only their own connection`,
    async () => {
      const started = performance.now();
      const frame = fc.oneof(
        fc.constantFrom(
          '42',
          '42[',
          '42{}',
          '42["subscribe"',
          '42[1,2]',
          '42[null]',
          '42["__proto__",{"polluted":"yes"}]',
          '42["subscribe",{"__proto__":{"polluted":"yes"},"cluster":"palisade-embedded","kind":"pods"}]',
          '4299999999999999999999["subscribe",{}]',
          '42-1["watchGhosts",{"cluster":"palisade-embedded"}]',
          '451-["subscribe",{"_placeholder":true,"num":0}]',
          '451-["subscribe",{"_placeholder":true,"num":7}]',
          '45["subscribe",{"_placeholder":true,"num":0}]',
          '499999999-["subscribe",{"_placeholder":true,"num":0}]',
          '40/admin,',
          '40/nope,{"token":"x"}',
          '41',
          '43["x"]',
          '44{"message":"x"}',
          '46["x"]',
          '4',
          '9',
          '',
        ),
        fc.integer({ min: 500, max: 20_000 }).map((n) => `42["subscribe",${'['.repeat(n)}${']'.repeat(n)}]`),
        fc
          .integer({ min: 500, max: 20_000 })
          .map((n) => `42["watchGhosts",${'{"a":'.repeat(n)}1${'}'.repeat(n)}]`),
        fc
          .integer({ min: 2, max: 200 })
          .map(
            (n) =>
              `45${n}-["subscribe",${Array.from({ length: n }, (_, i) => `{"_placeholder":true,"num":${i}}`).join(',')}]`,
          ),
        fc.string({ maxLength: 40 }).map((t) => `42${t}`),
        fc.string({ maxLength: 40 }),
        fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      );
      const other = socketOf('viewer');
      try {
        await eventually(() => other.connected, 'a bystander connected');
        await fc.assert(
          fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 4 }), async (frames) => {
            const s = socketOf('limited');
            try {
              await eventually(() => s.connected, 'connected');
              for (const f of frames)
                (s.io.engine as unknown as { write(d: string | Buffer): void }).write(f);
              // the connection may be closed for a bad packet; the server and everyone else go on
              const r: any = await other
                .timeout(15_000)
                .emitWithAck('subscribe', { cluster: 'no-such-cluster', kind: 'pods' });
              expect(r.ok, JSON.stringify(frames).slice(0, 300)).toBe(false);
              if (s.connected)
                checkRooms(
                  'limited',
                  serverSocket(s)?.rooms ?? new Set(),
                  JSON.stringify(frames).slice(0, 300),
                );
            } finally {
              s.close();
            }
          }),
          { numRuns: rawCases, seed: FUZZ_SEED, reporter },
        );
        expect(other.connected).toBe(true);
        expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
        fuzzReport('socket.io raw frames', rawCases, performance.now() - started);
      } finally {
        other.close();
      }
    },
    fuzzTimeout(rawCases, 3_000),
  );

  it('a payload past the size limit closes only that connection', async () => {
    const other = socketOf('viewer');
    const big = socketOf('viewer', ['polling']);
    try {
      await eventually(() => other.connected && big.connected, 'both connected');
      big.emit('subscribe', { cluster: CLUSTER, kind: 'pods', pad: 'x'.repeat(3_000_000) });
      await eventually(() => !big.connected, 'the big one dropped', 30_000);
      const r: any = await other
        .timeout(15_000)
        .emitWithAck('subscribe', { cluster: CLUSTER, kind: 'nodes' });
      expect(r).toMatchObject({ ok: true });
    } finally {
      other.close();
      big.close();
    }
  });

  const handshakeCases = fuzzCases(100);
  it(
    `no credential, no socket (${handshakeCases} engine.io requests): every handshake refused, nothing heard`,
    async () => {
      const started = performance.now();
      for (const transports of [['websocket'], ['polling']] as ('websocket' | 'polling')[][]) {
        const s = io(c.url, { path: '/socket.io', transports, forceNew: true, reconnection: false });
        const heard: string[] = [];
        s.onAny((e) => heard.push(e));
        s.emit('subscribe', { cluster: CLUSTER, kind: 'pods' });
        try {
          const err = await new Promise<Error>((resolve) => s.on('connect_error', resolve));
          expect(String(err)).toMatch(/websocket error|xhr poll error|401/i);
          expect(heard).toEqual([]);
        } finally {
          s.close();
        }
      }
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            query: fc.oneof(
              fc.constantFrom(
                'EIO=4&transport=polling',
                'EIO=4&transport=websocket',
                'EIO=3&transport=polling',
                'EIO=4&transport=polling&sid=AAAAAAAAAAAAAAAAAAAA',
                '',
              ),
              fc.string({ maxLength: 30 }).map(encodeURIComponent),
            ),
            method: fc.constantFrom('GET', 'POST'),
            body: fc.constantFrom(
              '40',
              '42["subscribe",{"cluster":"palisade-embedded","kind":"pods"}]',
              '1',
              '',
            ),
            header: fc.constantFrom(undefined, 'Bearer nope', 'Basic eDp4', `Bearer ${'x'.repeat(20_000)}`),
            cookie: fc.constantFrom(undefined, 'palisade_session=forged', `${sessionCookie}x`),
          }),
          async (r) => {
            const a = await send(
              r.method,
              `/socket.io/?${r.query}`,
              {
                ...(r.header ? { authorization: r.header } : {}),
                ...(r.cookie ? { cookie: r.cookie } : {}),
                ...(r.method === 'POST' ? { 'content-type': 'text/plain;charset=UTF-8' } : {}),
              },
              r.method === 'POST' ? r.body : undefined,
            );
            // 429: the same bad bearer token tried too often (the per-token limit of every
            // authentication path) is refused before it is even checked
            expect([401, 429, 431], JSON.stringify(r).slice(0, 200)).toContain(a.status);
          },
        ),
        { numRuns: handshakeCases, seed: FUZZ_SEED, reporter },
      );
      fuzzReport('engine.io handshakes without a credential', handshakeCases, performance.now() - started);
    },
    fuzzTimeout(handshakeCases, 1_000),
  );
});

// ---- HTTP routes outside tRPC -------------------------------------------------------------

type Route = 'auth' | 'oidc' | 'instance-ids' | 'metrics' | 'health' | 'other';

interface RawRequest {
  route: Route;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** the credential sent, by whom */
  who: Who | 'anonymous' | 'forged';
}

/** A string a URL can carry (encodeURIComponent refuses a lone surrogate). */
const wellFormed = (t: string) =>
  t.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

function routeRequests(): fc.Arbitrary<RawRequest> {
  const garbage = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.constantFrom(
      '{',
      '[]',
      'null',
      '""',
      '{"token":',
      '{"token":""}',
      '{"everywhere":"yes"}',
      '\u0000',
      '1e999',
    ),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.constantFrom('tok', 'x'.repeat(16_385)).map((t) => JSON.stringify({ token: t })),
    fc.integer({ min: 100, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.constantFrom(70_000, 1_100_000).map((n) => JSON.stringify({ token: 'x'.repeat(n) })),
    fc
      .constantFrom(
        { namespace: NS, pod: 'api-0' },
        { namespace: OTHER, pod: 'keys-0' },
        { namespace: 'Shop', pod: '../x' },
      )
      .map((b) => JSON.stringify(b)),
  );
  const path = fc.oneof(
    fc.constantFrom<[Route, string]>(
      ['auth', '/auth/session'],
      ['auth', '/auth/token'],
      ['auth', '/auth/signout'],
      ['auth', '/auth/link?token=forged'],
      ['auth', '/auth/link'],
      ['auth', '/auth/nope'],
      ['auth', '/auth/session/..%2F..%2Fmetrics'],
      ['oidc', '/auth/oidc/start'],
      ['oidc', '/auth/oidc/start?next=%2F%09%2Fevil.example%2F'],
      ['oidc', '/auth/oidc/start?next=https://evil.example/'],
      ['oidc', '/auth/oidc/callback'],
      ['oidc', '/auth/oidc/callback?state=x&code=y'],
      ['oidc', '/auth/oidc/callback?error=access_denied&error_description=%3Cscript%3E'],
      ['instance-ids', '/instance-ids/acquire'],
      ['instance-ids', '/instance-ids/release'],
      ['instance-ids', '/instance-ids/nope'],
      ['metrics', '/metrics'],
      ['metrics', '/metrics?name[]=x'],
      ['health', '/healthz'],
      ['health', '/readyz'],
      ['health', '/readyz?verbose'],
      ['other', '/signin?next=%2F%09%2Fevil.example%2F'],
      ['other', '//evil.example/'],
      ['other', '/%2e%2e/%2e%2e/etc/passwd'],
    ),
    fc
      .tuple(fc.constantFrom<Route>('auth', 'oidc'), hostileString(S).map(wellFormed))
      .map(([r, q]): [Route, string] => [
        r,
        `${r === 'oidc' ? '/auth/oidc/callback' : '/auth/link'}?state=${encodeURIComponent(q)}&code=${encodeURIComponent(q)}&token=${encodeURIComponent(q)}`,
      ]),
  );
  const credential = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<Who>('viewer', 'admin', 'root', 'limited', 'nobody', 'session') },
    { weight: 2, arbitrary: fc.constant<'anonymous'>('anonymous') },
    { weight: 2, arbitrary: fc.constant<'forged'>('forged') },
  );
  const forged = fc.oneof(
    fc.constantFrom(
      'Bearer not-a-token',
      'Bearer ',
      'bearer x',
      'Basic dmlld2VyOnZpZXdlcg==',
      `Bearer ${'x'.repeat(10_000)}`,
    ),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((t) => `Bearer ${t}`),
  );
  const headerJunk = fc.dictionary(
    fc.constantFrom(
      'origin',
      'host',
      'cookie',
      'x-forwarded-for',
      'x-forwarded-proto',
      'x-forwarded-host',
      'sec-fetch-site',
      'content-type',
      'accept',
      'transfer-encoding-x',
    ),
    fc.oneof(
      fc.constantFrom(
        'http://evil.example',
        'null',
        'evil.example',
        '127.0.0.1',
        'localhost:1',
        'cross-site',
        'application/json',
        'text/plain',
        'a=b; palisade_session=forged',
        '1.2.3.4, 5.6.7.8',
      ),
      fc.stringMatching(/^[ -~]{0,40}$/),
    ),
    { maxKeys: 3 },
  );
  return fc
    .record({
      path,
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('GET', 'POST') },
        {
          weight: 2,
          arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
        },
      ),
      who: credential,
      forged,
      junk: headerJunk,
      body: fc.option(garbage, { nil: undefined }),
      ownOrigin: fc.boolean(),
    })
    .map(({ path: [route, p], method, who, forged: f, junk, body, ownOrigin }) => {
      const auth: Record<string, string> =
        who === 'anonymous'
          ? {}
          : who === 'forged'
            ? { authorization: f }
            : who === 'session'
              ? { cookie: sessionCookie }
              : { authorization: `Bearer ${tokens[who]}` };
      return {
        route,
        method,
        path: p,
        who,
        headers: {
          ...(ownOrigin ? { origin: own(), 'content-type': 'application/json' } : {}),
          ...auth,
          ...junk,
        },
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      };
    });
}

describe('HTTP routes outside tRPC', () => {
  const cases = fuzzCases(400);
  it(
    `sign-in, OIDC, instance IDs, metrics, health (${cases} cases): never a 500 or a hang, no session or data without a credential, no change`,
    async () => {
      const started = performance.now();
      const byRoute = new Map<string, Map<number, number>>();
      await fc.assert(
        fc.asyncProperty(routeRequests(), async (r) => {
          const a = await send(r.method, r.path, r.headers, r.body).catch((e: Error) => {
            // a body past a route's limit (64 KiB on /auth, 4 KiB on /instance-ids) is cut off
            // with the connection, before its 413 is read (server/auth/http.ts readJson)
            const big = Buffer.byteLength(r.body ?? '') > 4096;
            if (big && /socket hang up|ECONNRESET|EPIPE/.test(e.message))
              return { status: 0, headers: {}, text: '' } as Answer;
            throw e;
          });
          const statuses = byRoute.get(r.route) ?? new Map<number, number>();
          byRoute.set(r.route, statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1));
          if (a.status === 0) return; // cut off (counted as status 0)
          const shown = `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 300)} ${(r.body ?? '').slice(0, 100)} as ${r.who}: ${a.status} ${a.text.slice(0, 300)}`;
          expect(a.status, shown).not.toBe(500);
          expect(a.status, shown).toBeGreaterThanOrEqual(200);
          expect(a.status, shown).toBeLessThan(600);
          // a redirect goes to this console only
          const location = a.headers.location;
          if (location) {
            const to = new URL(location, own());
            const oidcStart = r.route === 'oidc' && to.host === '127.0.0.1:9';
            expect(to.origin === own() || oidcStart, `${shown}: redirected to ${location}`).toBe(true);
          }
          const cookie = [a.headers['set-cookie'] ?? []].flat().join('\n');
          // a new session only from a sign-in that names a valid token
          if (/palisade[^=]*session[^=]*=[^;]+;/i.test(cookie) && !/Max-Age=0/i.test(cookie))
            expect(r.path === '/auth/token' && a.status === 200, `${shown}: a session from ${cookie}`).toBe(
              true,
            );
          // without a credential: only who is signed in (nobody), a sign-out of nothing, the
          // sign-in flows' own redirects; never data
          if (
            a.status === 200 &&
            ['anonymous', 'forged'].includes(r.who) &&
            r.route !== 'health' &&
            r.route !== 'other'
          ) {
            const path = new URL(r.path, own()).pathname;
            expect(['/auth/session', '/auth/signout'], `${shown}: answered without a credential`).toContain(
              path,
            );
            expect(JSON.parse(a.text), `${shown}: answered without a credential`).toMatchObject({
              signedIn: false,
            });
          }
          if (r.route === 'instance-ids')
            expect(a.status, `${shown}: an instance ID for someone who is not a pod`).not.toBe(200);
          // no metric without a credential (a refusal may quote what was sent, so the body's form decides)
          if (r.route === 'metrics' && ['anonymous', 'forged'].includes(r.who)) {
            expect(a.status, shown).not.toBe(200);
            expect(a.text, shown).not.toMatch(/^# (HELP|TYPE) /m);
          }
        }),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      expect(await snapshot()).toEqual(baseline);
      fuzzReport(
        'HTTP routes outside tRPC',
        cases,
        performance.now() - started,
        JSON.stringify(Object.fromEntries([...byRoute].map(([k, v]) => [k, Object.fromEntries(v)]))),
      );
    },
    fuzzTimeout(cases, 1_000),
  );
});

describe('afterwards', () => {
  it('no unhandled rejection, no uncaught exception, no polluted prototype, nothing changed, still serving', async () => {
    watch.expectClean();
    expect(await snapshot()).toEqual(baseline);
    expect((await send('GET', '/readyz', {})).status).toBe(200);
  });
});
