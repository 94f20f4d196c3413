// OIDC sign-in end to end without a browser: oidc-provider (testenv/oidc) as the identity
// provider, Palisade's relying party (openid-client: code + PKCE + state + nonce), sessions
// that act by impersonation — one Impersonate-Group header per group, checked by the cluster's
// own SelfSubjectReview — refresh before the ID token expires, and a failed refresh that ends
// the session and closes its sockets. On the real control plane kube-apiserver also trusts the
// provider (--authentication-config), so the same person is oidc:alice to kubectl and to Palisade.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import { type IdentityProvider, OidcTestClient, startIdentityProvider } from '../../testenv/oidc/index.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { freePort, type RawAnswer, rawRequest } from '../test/consoleHarness.js';
import { kubeConfigWithToken } from './kubeAs.js';
import { sessionKey } from './sessions.js';

const CLUSTER = 'palisade-embedded';
const CLIENT = { clientId: 'palisade', clientSecret: 'oidc-test-secret' };
let dir: string;
let port: number;
let idp: IdentityProvider;
let cluster: EmbeddedCluster;
let c: Console;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-oidc-'));
  port = await freePort();
  idp = await startIdentityProvider({
    clients: [{ ...CLIENT, redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`] }],
    // short-lived ID tokens: the session must be renewed while the test watches
    ttl: { idToken: 8, accessToken: 8 },
  });
  const scenario = parseScenario(
    `name: oidc-test\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-o, racks: [{ name: o1, count: 2 }] }]\nworkloads: []\n`,
    'oidc test',
  );
  cluster = await startEmbeddedCluster({
    scenario,
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
    // the real kube-apiserver trusts the same provider, with the same claim mappings
    authentication: {
      jwt: [{ issuer: idp.issuer, audiences: [CLIENT.clientId], certificateAuthority: idp.caPem }],
    },
  });
  const rbac = cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  for (const [group, role] of [
    ['oidc:palisade-operators', 'palisade-operator'],
    ['oidc:palisade-viewers', 'palisade-viewer'],
  ])
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `oidc-test-${role}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
      },
    });
  c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    port,
    ui: false,
    fencing: false,
    auth: { oidc: oidcConfig() },
  });
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
}, 120_000);

/** the console's auth.oidc (the same for every replica) */
const oidcConfig = () => ({
  issuer: idp.issuer,
  clientID: CLIENT.clientId,
  clientSecret: CLIENT.clientSecret,
  usernameClaim: 'preferred_username',
  groupsClaim: 'groups',
  usernamePrefix: 'oidc:',
  groupsPrefix: 'oidc:',
  scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
  caFile: idp.caFile,
});

afterAll(async () => {
  await c?.stop();
  await cluster?.stop();
  await idp?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Answer = RawAnswer;

function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<Answer> {
  return rawRequest(
    port,
    method,
    path,
    {
      host: `127.0.0.1:${port}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body,
  );
}

const cookiesOf = (a: Answer) => (a.headers['set-cookie'] ?? []).map((x) => x.split(';')[0]);

/** A browser's round trip: /auth/oidc/start, the provider's login form, the callback. */
async function signIn(user: string, password: string): Promise<string> {
  const start = await get('/auth/oidc/start?next=%2Fnodes');
  expect(start.status).toBe(302);
  const flow = cookiesOf(start)[0];
  const browser = await OidcTestClient.discover(idp, {
    ...CLIENT,
    redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`],
  });
  const back = await browser.actAsBrowser(start.headers.location!, user, password);
  const done = await get(back.pathname + back.search, { cookie: flow });
  expect(done.status).toBe(302);
  expect(done.headers.location).toBe('/nodes');
  const session = cookiesOf(done).find((x) => x.startsWith('palisade_session_'));
  expect(session).toBeTruthy();
  return session!;
}

const trpc = (cookie: string, path: string, input: unknown) =>
  get(`/api/trpc/${path}`, { cookie, origin: `http://127.0.0.1:${port}` }, 'POST', JSON.stringify(input));

describe('OIDC sign-in', () => {
  it('alice signs in; Palisade impersonates oidc:alice with each group a header of its own', async () => {
    const cookie = await signIn('alice', 'alice-correct-horse');
    const who = JSON.parse((await get('/auth/session', { cookie })).body);
    expect(who).toMatchObject({ signedIn: true, method: 'oidc' });
    // what the cluster answered to Palisade's impersonated SelfSubjectReview
    expect(who.clusters[0].user).toBe('oidc:alice');
    expect(who.clusters[0].groups).toEqual(
      expect.arrayContaining(['oidc:shop-admins', 'oidc:palisade-operators', 'system:authenticated']),
    );
    // bound to palisade-operator through her group: she may partition a node
    const act = await trpc(cookie, 'infra.act', { cluster: CLUSTER, node: 'o1-2', verb: 'partition' });
    expect(act.status).toBe(200);
    await trpc(cookie, 'infra.act', { cluster: CLUSTER, node: 'o1-2', verb: 'heal' });
  });

  it('bob, a viewer by his group, is refused in the cluster’s words', async () => {
    const cookie = await signIn('bob', 'bob-battery-staple');
    const act = await trpc(cookie, 'infra.act', { cluster: CLUSTER, node: 'o1-2', verb: 'partition' });
    expect(act.status).toBe(403);
    expect(act.body).toContain(
      'simulatedfaults.palisade.dev \\"o1-2\\" is forbidden: User \\"oidc:bob\\" cannot create resource \\"simulatedfaults\\"',
    );
  });

  it('a wrong password signs nobody in', async () => {
    const start = await get('/auth/oidc/start');
    const browser = await OidcTestClient.discover(idp, {
      ...CLIENT,
      redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`],
    });
    await expect(browser.actAsBrowser(start.headers.location!, 'alice', 'wrong')).rejects.toThrow();
  });

  it('a sign-in started on one replica finishes on another: the flow travels sealed in its cookie', async () => {
    // replica B behind the same public address as this console (A): the provider sends the
    // browser back to A, which never saw the start
    const b = await startConsole({
      clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
      port: 0,
      ui: false,
      fencing: false,
      auth: { publicURL: `http://127.0.0.1:${port}`, oidc: oidcConfig() },
    });
    try {
      const portB = Number(new URL(b.url).port);
      const start = await rawRequest(portB, 'GET', '/auth/oidc/start?next=%2Fnodes', {
        host: `127.0.0.1:${portB}`,
      });
      expect(start.status).toBe(302);
      const flow = cookiesOf(start)[0];
      expect(flow).toMatch(new RegExp(`^palisade_oidc_${port}=`));
      const browser = await OidcTestClient.discover(idp, {
        ...CLIENT,
        redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`],
      });
      const back = await browser.actAsBrowser(start.headers.location!, 'alice', 'alice-correct-horse');
      const done = await get(back.pathname + back.search, { cookie: flow });
      expect(done.status).toBe(302);
      expect(done.headers.location).toBe('/nodes');
      // and the sealed cookie is no bearer of anything once used with another state
      const replay = await get(`/auth/oidc/callback?code=x&state=forged`, { cookie: flow });
      expect(replay.headers.location).toMatch(/^\/signin\?error=oidc/);
    } finally {
      await b.stop();
    }
  });

  it('a callback not started in this browser is refused', async () => {
    const r = await get('/auth/oidc/callback?code=x&state=forged');
    expect(r.status).toBe(302);
    expect(r.headers.location).toMatch(/^\/signin\?error=oidc/);
  });

  it('keeps the session past the ID token lifetime by refreshing it', async () => {
    const cookie = await signIn('alice', 'alice-correct-horse');
    const s = c.auth.sessions.all().find((x) => x.method === 'oidc' && x.oidc?.expiresAt)!;
    const first = s.oidc!.expiresAt!;
    await eventually(() => (s.oidc?.expiresAt ?? 0) > first, 'the session renewed', 20_000);
    await new Promise((r) => setTimeout(r, Math.max(0, first - Date.now() + 500)));
    expect((await get('/api/trpc/clusters.list', { cookie })).status).toBe(200);
  }, 40_000);

  it.runIf(backendFromEnv() === 'real')(
    'kube-apiserver knows alice by the same name from her own ID token',
    async () => {
      const client = await OidcTestClient.discover(idp, {
        ...CLIENT,
        redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`],
      });
      const { tokens } = await client.signIn('alice', 'alice-correct-horse');
      const api = kubeConfigWithToken(cluster.kc, tokens.id_token!).makeApiClient(k8s.AuthenticationV1Api);
      const r = await api.createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      expect(r.status?.userInfo?.username).toBe('oidc:alice');
      expect(r.status?.userInfo?.groups).toEqual(
        expect.arrayContaining(['oidc:shop-admins', 'oidc:palisade-operators']),
      );
    },
  );

  it('a refresh the provider refuses ends the session and closes its sockets', async () => {
    const cookie = await signIn('alice', 'alice-correct-horse');
    const socket = io(`http://127.0.0.1:${port}`, {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      extraHeaders: { cookie, origin: `http://127.0.0.1:${port}` },
    });
    const ended: unknown[] = [];
    socket.on('session:ended', (m) => ended.push(m));
    try {
      await eventually(() => socket.connected, 'socket connected');
      // the provider no longer knows this refresh token (as after a revocation)
      const s = c.auth.sessions
        .all()
        // the cookie's value is "<session id>.<MAC>" (lib/auth/cookies.ts)
        .find((x) => x.oidc && x.sessionKey === sessionKey(cookie.split('=')[1].split('.')[0]))!;
      s.oidc!.refreshToken = 'revoked';
      s.oidc!.expiresAt = Date.now() + 1000;
      await eventually(() => !socket.connected, 'the socket closed with its session', 20_000);
      expect(ended).toEqual([{ why: 'refresh-failed' }]);
      expect((await get('/api/trpc/clusters.list', { cookie })).status).toBe(401);
    } finally {
      socket.close();
    }
  }, 40_000);
});
