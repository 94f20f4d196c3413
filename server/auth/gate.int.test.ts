// The request gate and sign-in against a running console on the embedded cluster (and, with
// PALISADE_CLUSTER=real, on etcd + kube-apiserver): issue 15's two attacks replayed (DNS
// rebinding, cross-site WebSocket), every way in without a session refused, the demo users'
// RBAC in the cluster's own words, sessions, the one-time link, and /metrics.
import type http from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterAndConsole, rawRequest, startClusterAndConsole } from '../test/consoleHarness.js';
import type { NodeView } from '../../lib/console/protocol.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { EmbeddedCluster } from '../../sim/cluster.js';
import type { Console } from '../console.js';
import { serviceAccountReady } from '../test/namespaces.js';
import { socketClient, subscribe, tokenOf, trpcClient } from '../test/client.js';

let h: ClusterAndConsole;
let cluster: EmbeddedCluster;
let c: Console;
let port: number;
const CLUSTER = 'palisade-embedded';

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'gate-test',
    rack: 'c1',
    count: 2,
    console: { auth: { signInLink: true, session: { idleMs: 60_000, absoluteMs: 3_600_000 } } },
  });
  ({ cluster, console: c } = h);
  port = c.port;
  await serviceAccountReady(cluster.kc.makeApiClient(k8s.CoreV1Api), 'default');
}, 120_000);

afterAll(() => h?.stop());

/** A raw request, so Host and Origin are exactly what an attacker's browser would send. */
const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  rawRequest(port, method, path, headers, body);

const own = () => `http://127.0.0.1:${port}`;
const host = () => `127.0.0.1:${port}`;
const partitionBody = (node: string) => JSON.stringify({ cluster: CLUSTER, node, verb: 'partition' });

async function nodeReady(name: string) {
  const n = await cluster.kc.makeApiClient(k8s.CoreV1Api).readNode({ name });
  return n.status?.conditions?.find((x) => x.type === 'Ready')?.status;
}

describe('issue 15: the two attacks', () => {
  it('DNS rebinding: a foreign Host is refused before anything acts, even with a valid token', async () => {
    const withToken: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${cluster.users.admin.token}` },
    ];
    for (const auth of withToken) {
      const r = await raw(
        'POST',
        '/api/trpc/infra.act',
        {
          host: `rebind.attacker.example:${port}`,
          origin: `http://rebind.attacker.example:${port}`,
          'content-type': 'application/json',
          ...auth,
        },
        partitionBody('c1-2'),
      );
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body).code).toBe('host_not_allowed');
    }
    for (const path of ['/', '/metrics', '/socket.io/?EIO=4&transport=polling', '/auth/session'])
      expect((await raw('GET', path, { host: `rebind.attacker.example:${port}` })).status).toBe(403);
    // nothing happened to the node
    expect(infraState('c1-2')).toMatchObject({ partitioned: false });
  });

  it("the kubelet's probes: /healthz and /readyz answer with the pod's IP in Host, nothing else does", async () => {
    const probe = { host: `10.244.1.7:${port}`, 'user-agent': 'kube-probe/1.34' };
    for (const path of ['/healthz', '/readyz']) {
      const r = await raw('GET', path, probe);
      expect([r.status, r.body]).toEqual([200, 'ok\n']);
    }
    const token = { authorization: `Bearer ${cluster.users.admin.token}` };
    for (const path of ['/', '/metrics', '/api/trpc/clusters.list', '/auth/session', '/healthz/x'])
      expect((await raw('GET', path, { ...probe, ...token })).status, path).toBe(403);
  });

  it('cross-site WebSocket: a handshake from another site is refused, polling and WebSocket', async () => {
    const polling = await raw('GET', '/socket.io/?EIO=4&transport=polling', {
      host: host(),
      origin: 'https://evil.example',
    });
    expect(polling.status).toBe(403);
    expect(polling.body).not.toMatch(/"sid"/);
    const ws = io(own(), {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      extraHeaders: { origin: 'https://evil.example', authorization: `Bearer ${cluster.users.admin.token}` },
    });
    try {
      const err = await new Promise<Error>((resolve) => ws.on('connect_error', resolve));
      expect(err.message).toMatch(/websocket error|403/i);
      expect(ws.connected).toBe(false);
    } finally {
      ws.close();
    }
  });
});

function infraState(node: string) {
  return cluster.infra.node(node);
}

describe('nothing answers without a session or a token', () => {
  it('tRPC: 401; a page: to sign-in; /metrics: 401; socket.io: refused', async () => {
    expect((await raw('GET', '/api/trpc/clusters.list', { host: host() })).status).toBe(401);
    const page = await raw('GET', '/nodes?q=a', { host: host() });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/signin?next=%2Fnodes%3Fq%3Da');
    expect((await raw('GET', '/metrics', { host: host() })).status).toBe(401);
    expect((await raw('GET', '/socket.io/?EIO=4&transport=polling', { host: host() })).status).toBe(401);
    for (const path of ['/healthz', '/readyz', '/auth/session'])
      expect((await raw('GET', path, { host: host() })).status).toBe(200);
  });

  it('a token the cluster does not accept: 401', async () => {
    const r = await raw('GET', '/api/trpc/clusters.list', {
      host: host(),
      authorization: 'Bearer not-a-token',
    });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error).toMatch(/does not accept this token/);
  });

  it('form posts and octet-stream bodies never reach tRPC', async () => {
    const token = cluster.users.admin.token;
    for (const type of ['multipart/form-data; boundary=x', 'application/octet-stream', 'text/plain']) {
      const r = await raw(
        'POST',
        '/api/trpc/infra.act',
        { host: host(), authorization: `Bearer ${token}`, 'content-type': type },
        partitionBody('c1-2'),
      );
      expect(r.status).toBe(415);
    }
    expect(infraState('c1-2')).toMatchObject({ partitioned: false });
  });

  it('security headers on every answer, with a fresh script nonce each time', async () => {
    const a = await raw('GET', '/healthz', { host: host() });
    const b = await raw('GET', '/nope', { host: 'evil.example' });
    for (const r of [a, b]) {
      expect(r.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(r.headers['content-security-policy']).toMatch(
        /script-src 'self' 'nonce-[^']+' 'strict-dynamic'/,
      );
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      // which replica answered
      expect(r.headers['x-palisade-replica']).toMatch(/^.+_\d+_[0-9a-f]{8}$/);
    }
    const nonce = (h: http.IncomingHttpHeaders) =>
      /'nonce-([^']+)'/.exec(String(h['content-security-policy']))?.[1];
    expect(nonce(a.headers)).not.toBe(nonce(b.headers));
  });
});

describe('the demo users, in the cluster’s own words', () => {
  it('viewer: may read, and actions.perform / infra.act are FORBIDDEN with the 403 text', async () => {
    const viewer = trpcClient(c.url, cluster.users.viewer.token);
    const list = await viewer.clusters.list.query();
    expect(list.find((x) => x.id === CLUSTER)?.user?.name).toBe('viewer');
    await expect(
      viewer.infra.act.mutate({ cluster: CLUSTER, node: 'c1-2', verb: 'partition' }),
    ).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
      message: expect.stringContaining(
        'is forbidden: User "viewer" cannot create resource "simulatedfaults"',
      ),
    });
    const pod = await somePod();
    await expect(
      viewer.actions.perform.mutate({
        action: 'forceDeletePod',
        cluster: CLUSTER,
        namespace: 'default',
        name: pod,
        confirm: pod,
        reason: 'test',
      }),
    ).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
      message: expect.stringContaining(
        `pods "${pod}" is forbidden: User "viewer" cannot delete resource "pods"`,
      ),
    });
    const may = await viewer.access.actions.query({
      cluster: CLUSTER,
      targets: [{ action: 'forceDeletePod', namespace: 'default', name: pod }],
    });
    expect(may[0]).toMatchObject({
      allowed: false,
      reason: `you (viewer) may not delete pods "${pod}" in default`,
    });
    expect(infraState('c1-2')).toMatchObject({ partitioned: false });
  });

  it('operator: infra.act succeeds and its Event names operator', async () => {
    const operator = trpcClient(c.url, cluster.users.operator.token);
    const r = await operator.infra.act.mutate({ cluster: CLUSTER, node: 'c1-2', verb: 'partition' });
    expect(r.recorded).toBe(true);
    await eventually(async () => (await nodeReady('c1-2')) === 'Unknown', 'c1-2 Unknown', 20_000);
    const events = await cluster.kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespacedEvent({ namespace: 'default' });
    expect(
      events.items.some((e) => e.reason === 'SimulatedPartition' && e.message?.includes('operator')),
    ).toBe(true);
    await operator.infra.act.mutate({ cluster: CLUSTER, node: 'c1-2', verb: 'heal' });
  });

  it('a socket sees only what its person may list', async () => {
    const sub = subscribe<NodeView>(c.url, cluster.users.viewer.token, CLUSTER, 'nodes', (n) => n.name);
    try {
      await eventually(() => sub.snapshots.length === 1, 'a snapshot for the viewer');
    } finally {
      sub.close();
    }
  });
});

async function somePod(): Promise<string> {
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  const created = await core.createNamespacedPod({
    namespace: 'default',
    body: { metadata: { generateName: 'gate-' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  });
  return created.metadata!.name!;
}

describe('sessions', () => {
  async function signIn(token: string) {
    const r = await raw(
      'POST',
      '/auth/token',
      { host: host(), origin: own(), 'content-type': 'application/json' },
      JSON.stringify({ token }),
    );
    const cookie = String(r.headers['set-cookie'] ?? '');
    return { r, cookie: cookie.split(';')[0] };
  }

  it('token sign-in sets an HttpOnly, SameSite=Strict cookie; the session acts as that user', async () => {
    const { r, cookie } = await signIn(cluster.users.operator.token);
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']?.[0]).toMatch(/HttpOnly/);
    expect(r.headers['set-cookie']?.[0]).toMatch(/SameSite=Strict/);
    expect(r.body).not.toContain(cluster.users.operator.token);
    const who = await raw('GET', '/auth/session', { host: host(), cookie });
    expect(JSON.parse(who.body)).toMatchObject({
      signedIn: true,
      method: 'token',
      clusters: [{ user: 'operator' }],
    });
    // a cookie alone never changes anything: a mutation needs our Origin
    const noOrigin = await raw(
      'POST',
      '/api/trpc/infra.act',
      { host: host(), cookie, 'content-type': 'application/json' },
      partitionBody('c1-1'),
    );
    expect(noOrigin.status).toBe(403);
    expect(JSON.parse(noOrigin.body).code).toBe('origin_required');
    const foreign = await raw(
      'POST',
      '/api/trpc/infra.act',
      { host: host(), cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      partitionBody('c1-1'),
    );
    expect(foreign.status).toBe(403);
    expect(infraState('c1-1')).toMatchObject({ partitioned: false });
  });

  it('a refused token, and too many attempts', async () => {
    const bad = await signIn('nope');
    expect(bad.r.status).toBe(401);
    expect(bad.cookie).toBe('');
  });

  it('sign-out ends the session and closes its sockets', async () => {
    const { cookie } = await signIn(cluster.users.viewer.token);
    const socket = io(own(), {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      extraHeaders: { cookie, origin: own() },
    });
    const ended: unknown[] = [];
    socket.on('session:ended', (m) => ended.push(m));
    try {
      await eventually(() => socket.connected, 'socket connected with the session cookie');
      const out = await raw(
        'POST',
        '/auth/signout',
        { host: host(), cookie, origin: own(), 'content-type': 'application/json' },
        '{}',
      );
      expect(out.status).toBe(200);
      await eventually(() => !socket.connected, 'socket closed with the session');
      expect(ended).toEqual([{ why: 'signed-out' }]);
      expect((await raw('GET', '/api/trpc/clusters.list', { host: host(), cookie })).status).toBe(401);
    } finally {
      socket.close();
    }
  });

  it('sign out everywhere ends every session of the person', async () => {
    const a = await signIn(cluster.users.viewer.token);
    const b = await signIn(cluster.users.viewer.token);
    const other = await signIn(cluster.users.operator.token);
    await raw(
      'POST',
      '/auth/signout',
      { host: host(), cookie: a.cookie, origin: own(), 'content-type': 'application/json' },
      '{"everywhere":true}',
    );
    expect((await raw('GET', '/api/trpc/clusters.list', { host: host(), cookie: b.cookie })).status).toBe(
      401,
    );
    expect((await raw('GET', '/api/trpc/clusters.list', { host: host(), cookie: other.cookie })).status).toBe(
      200,
    );
  });

  it('the one-time link works once, then the next one', async () => {
    const first = c.auth.link!.url;
    const path = new URL(first).pathname + new URL(first).search;
    const used = await raw('GET', path, { host: host() });
    expect(used.status).toBe(302);
    expect(used.headers.location).toBe('/');
    const cookie = String(used.headers['set-cookie']).split(';')[0];
    expect(JSON.parse((await raw('GET', '/auth/session', { host: host(), cookie })).body)).toMatchObject({
      signedIn: true,
      method: 'link',
    });
    const again = await raw('GET', path, { host: host() });
    expect(again.headers.location).toBe('/signin?error=link');
    expect(c.auth.link!.url).not.toBe(first);
  });
});

describe('/metrics', () => {
  it('answers a token allowed to get /metrics, 403s one that is not', async () => {
    const admin = await raw('GET', '/metrics', {
      host: host(),
      authorization: `Bearer ${tokenOf(cluster.kc)}`,
    });
    expect(admin.status).toBe(200);
    const viewer = await raw('GET', '/metrics', {
      host: host(),
      authorization: `Bearer ${cluster.users.viewer.token}`,
    });
    expect(viewer.status).toBe(403);
    expect(JSON.parse(viewer.body).error).toBe('forbidden: User "viewer" cannot get path "/metrics"');
  });

  it("Prometheus scraping the pod's IP: a token is answered, no token is refused by Host", async () => {
    const podIp = `10.244.1.7:${new URL(c.url).port}`;
    const scraped = await raw('GET', '/metrics', {
      host: podIp,
      authorization: `Bearer ${tokenOf(cluster.kc)}`,
    });
    expect(scraped.status).toBe(200);
    expect(scraped.body).toMatch(/^# HELP palisade_/m);
    expect((await raw('GET', '/metrics', { host: podIp })).status).toBe(403);
  });
});

describe('the one socket helper', () => {
  it('connects with a bearer token', async () => {
    const s = socketClient(c.url, cluster.users.viewer.token);
    try {
      await eventually(() => s.connected, 'connected');
    } finally {
      s.close();
    }
  });
});
