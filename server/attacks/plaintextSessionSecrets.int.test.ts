// Attack (issue 23, 5): sessions at rest. Shared sessions were kept as plain JSON in Secrets,
// so anyone who may read Secrets in that namespace (a namespace admin, a backup, an etcd
// snapshot) read people's bearer tokens and OIDC refresh tokens. Now each record is sealed with
// AES-256-GCM under a key only sessions use, kept in a Secret of its own (created by the first
// replica, with a random key; a replica that loses the race reads the winner's), and a
// plaintext record left by an older Palisade is deleted on sight.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { cookiesOf, rawRequest } from './harness.js';

const SESSIONS = 'palisade-sessions';
const KEY = { namespace: 'palisade-system', name: 'palisade-session-key' };
const SELECTOR = 'app.kubernetes.io/name=palisade,app.kubernetes.io/component=session';
let dir: string;
let cluster: EmbeddedCluster;
let core: k8s.CoreV1Api;
const consoles: Console[] = [];

async function replica(): Promise<Console> {
  const c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    fencing: false,
    auth: { sessionStore: { namespace: SESSIONS }, keySecret: KEY },
  });
  consoles.push(c);
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  return c;
}

const signIn = async (c: Console, token: string) => {
  const r = await rawRequest(
    c.port,
    'POST',
    '/auth/token',
    { host: `127.0.0.1:${c.port}`, origin: `http://127.0.0.1:${c.port}`, 'content-type': 'application/json' },
    JSON.stringify({ token }),
  );
  expect(r.status).toBe(200);
  return cookiesOf(r.headers)[0];
};

/** The same browser cookie, named for another replica's port (replicas behind one address share a name). */
const asFor = (c: Console, cookie: string) =>
  `palisade_session_${c.port}=${cookie.slice(cookie.indexOf('=') + 1)}`;
const signedIn = async (c: Console, cookie: string) =>
  (
    await rawRequest(c.port, 'GET', '/auth/session', {
      host: `127.0.0.1:${c.port}`,
      cookie: asFor(c, cookie),
    })
  ).body;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-attack-rest-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(
      `name: attack-rest\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-r, racks: [{ name: r1, count: 1 }] }]\nworkloads: []\n`,
      'attack rest',
    ),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await createReadyNamespace(core, SESSIONS);
  await createReadyNamespace(core, KEY.namespace);
}, 120_000);

afterAll(async () => {
  for (const c of consoles) await c.stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('sessions kept in Secrets', () => {
  it('hold no readable token: the record is sealed under a key kept in a Secret of its own', async () => {
    const a = await replica();
    const token = cluster.users.viewer.token;
    await signIn(a, token);
    const secrets = (await core.listNamespacedSecret({ namespace: SESSIONS, labelSelector: SELECTOR })).items;
    expect(secrets.length).toBe(1);
    const stored = Buffer.from(secrets[0].data!.session, 'base64');
    for (const text of [token, '"credential"', '"token"', 'viewer'])
      expect(stored.toString('latin1')).not.toContain(text);
    // the key: its own Secret, elsewhere, 32 random bytes for sessions (and 32 for audit seals)
    const key = await core.readNamespacedSecret(KEY);
    expect(Buffer.from(key.data!.session, 'base64').length).toBe(32);
    expect(Buffer.from(key.data!.audit, 'base64').length).toBe(32);
    expect(JSON.stringify(await core.listNamespacedSecret({ namespace: SESSIONS }))).not.toContain(
      key.data!.session,
    );
  });

  it('another replica reads the same key and serves the same browser', async () => {
    const [a] = consoles;
    const b = await replica();
    const cookie = await signIn(a, cluster.users.operator.token);
    await eventually(async () => JSON.parse(await signedIn(b, cookie)).signedIn === true, 'the session on b');
  });

  it('replicas that start together without a key agree on one', async () => {
    await core.deleteNamespacedSecret(KEY);
    const [b, c] = await Promise.all([replica(), replica()]);
    const cookie = await signIn(b, cluster.users.viewer.token);
    await eventually(async () => JSON.parse(await signedIn(c, cookie)).signedIn === true, 'b’s session on c');
  });

  it('a key Secret made by hand with the session key only is used as it is, never written', async () => {
    await core.deleteNamespacedSecret(KEY);
    const session = randomBytes(32);
    await core.createNamespacedSecret({
      namespace: KEY.namespace,
      body: { metadata: { name: KEY.name }, data: { session: session.toString('base64') } },
    });
    const before = (await core.readNamespacedSecret(KEY)).metadata!.resourceVersion;
    const [d, e] = await Promise.all([replica(), replica()]);
    expect(d.auth.keys.session.equals(session)).toBe(true);
    // the audit key derived from it, alike on every replica
    expect(d.auth.keys.audit.equals(e.auth.keys.audit)).toBe(true);
    expect(d.auth.keys.audit.equals(session)).toBe(false);
    expect((await core.readNamespacedSecret(KEY)).metadata!.resourceVersion).toBe(before);
  });

  it('a plaintext session an older Palisade left is deleted, not used', async () => {
    await core.createNamespacedSecret({
      namespace: SESSIONS,
      body: {
        metadata: {
          name: 'palisade-session-0123456789abcdef',
          labels: Object.fromEntries(SELECTOR.split(',').map((kv) => kv.split('='))),
        },
        type: 'palisade.dev/session',
        data: {
          session: Buffer.from(
            JSON.stringify({
              v: 1,
              method: 'token',
              credential: { kind: 'token', token: 'an-old-plaintext-token' },
              principals: [],
              createdAt: Date.now(),
              lastSeenAt: Date.now(),
            }),
          ).toString('base64'),
        },
      },
    });
    await eventually(
      async () =>
        !(await core.listNamespacedSecret({ namespace: SESSIONS })).items.some(
          (s) => s.metadata?.name === 'palisade-session-0123456789abcdef',
        ),
      'the plaintext session deleted',
    );
  });
});
