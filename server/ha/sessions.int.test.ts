// Browser sessions across three replicas behind one console address (haproxy, `balance source`),
// on the embedded cluster and (PALISADE_CLUSTER=real) on kube-apiserver: a session signed in on
// one replica works on every other at once, a sign-out on any is refused on all within moments,
// the store holds no cookie value, and a socket.io client whose replica dies (SIGKILL) or stops
// (SIGTERM) comes back through the address to another replica, with the same cookie, and keeps
// getting its room's live updates — the way the browser's live socket does (lib/console/ui/reconnect.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Delta, type NodeView, type Snapshot, SocketEvents } from '../../lib/console/protocol.js';
import { afterDisconnect, reconnectDelayMs, subscribeRequest } from '../../lib/console/ui/reconnect.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { scenario } from '../protection/test/protectionHarness.js';
import { tokenOf } from '../test/client.js';
import { REPLICA_SESSION_STORE, type Replica, type Replicas, startReplicas } from '../test/replicas.js';

const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-sessions-'));
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const SELECTOR = 'app.kubernetes.io/name=palisade,app.kubernetes.io/component=session';
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;
let token: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own: a pooled one would outlive the replica it reached. */
function request(base: string, path: string, o: { method?: string; cookie?: string; body?: unknown } = {}) {
  const url = new URL(path, base);
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: o.method ?? 'GET',
        agent: false,
        headers: {
          origin: url.origin,
          ...(o.cookie ? { cookie: o.cookie } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function signIn(base: string): Promise<string> {
  const r = await request(base, '/auth/token', { method: 'POST', body: { token } });
  expect(r.status).toBe(200);
  return (r.headers['set-cookie'] ?? [])[0].split(';')[0];
}

/** Which replica answers with this cookie, or undefined when it is not signed in there. */
async function whoServes(base: string, cookie: string): Promise<string | undefined> {
  const r = await request(base, '/auth/session', { cookie });
  const s = JSON.parse(r.body) as { signedIn: boolean; replica: string };
  return s.signedIn ? s.replica : undefined;
}

const replicaOf = (identity: string) => set.replicas.find((r) => identity.includes(`_${r.child.pid}_`));
const alive = (r: Replica) => r.child.exitCode === null && r.child.signalCode === null;

async function sessionSecrets() {
  return (
    await cluster.core.listNamespacedSecret({
      namespace: REPLICA_SESSION_STORE.namespace,
      labelSelector: SELECTOR,
    })
  ).items;
}

describe.skipIf(!haproxyAvailable())('sessions shared by three replicas behind one address', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-sessions', 3));
    token = tokenOf(cluster.kc);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kc.exportConfig());
    set = await startReplicas({ kubeconfig, n: 3, console: true });
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signed in on one replica, the session works on the others at once', async () => {
    const [a, b, c] = set.replicas;
    const cookie = await signIn(a.url);
    // one name on every replica: the public address's port, not each replica's own
    expect(cookie).toMatch(new RegExp(`^palisade_session_${new URL(set.consoleUrl!).port}=`));
    const served = [
      await whoServes(a.url, cookie),
      await whoServes(b.url, cookie),
      await whoServes(c.url, cookie),
    ];
    expect(served.map((s) => s && replicaOf(s)?.index)).toEqual([0, 1, 2]);
    const trpc = await request(c.url, '/api/trpc/clusters.list', { cookie });
    expect(trpc.status).toBe(200);
    // the store holds a hash of the id, never the id (the cookie is the credential)
    const value = cookie.split('=')[1];
    for (const s of await sessionSecrets()) {
      expect(s.metadata?.name).not.toContain(value);
      expect(Buffer.from(s.data?.session ?? '', 'base64').toString()).not.toContain(value);
    }
  });

  it('a sign-out on one replica is refused on every other', async () => {
    const [a, b, c] = set.replicas;
    const cookie = await signIn(a.url);
    expect(await whoServes(a.url, cookie)).toBeDefined();
    const before = (await sessionSecrets()).length;
    const out = await request(b.url, '/auth/signout', { method: 'POST', cookie, body: {} });
    expect(out.status).toBe(200);
    await eventually(
      async () => !(await whoServes(a.url, cookie)) && !(await whoServes(c.url, cookie)),
      'the session refused on the other replicas',
      5_000,
    );
    expect((await request(a.url, '/api/trpc/clusters.list', { cookie })).status).toBe(401);
    expect((await sessionSecrets()).length).toBe(before - 1);
  });

  it('sign out everywhere ends the sessions signed in on other replicas', async () => {
    const [a, b, c] = set.replicas;
    const first = await signIn(a.url);
    const second = await signIn(c.url);
    const out = await request(b.url, '/auth/signout', {
      method: 'POST',
      cookie: first,
      body: { everywhere: true },
    });
    expect(out.status).toBe(200);
    await eventually(
      async () => {
        for (const r of [a, b, c])
          for (const k of [first, second]) if (await whoServes(r.url, k)) return false;
        return true;
      },
      'both sessions refused everywhere',
      5_000,
    );
    expect(await sessionSecrets()).toHaveLength(0);
  });

  it("deploy/rbac grants the console's ServiceAccount what the store does, there only", async () => {
    const authz = cluster.kc.makeApiClient(k8s.AuthorizationV1Api);
    const may = async (verb: string, namespace: string) =>
      (
        await authz.createSubjectAccessReview({
          body: {
            spec: {
              user: 'system:serviceaccount:palisade-system:palisade',
              groups: [
                'system:serviceaccounts',
                'system:serviceaccounts:palisade-system',
                'system:authenticated',
              ],
              resourceAttributes: { namespace, verb, resource: 'secrets' },
            },
          },
        })
      ).status?.allowed === true;
    for (const verb of ['get', 'list', 'watch', 'create', 'update', 'delete'])
      expect([verb, await may(verb, 'kube-system')]).toEqual([verb, true]);
    expect(await may('patch', 'kube-system')).toBe(false);
    expect(await may('get', 'default')).toBe(false);
  });

  it('a socket whose replica dies or stops reconnects through the address and keeps its room live', async () => {
    const base = set.consoleUrl!;
    const cookie = await signIn(base);
    const clusterId = (
      JSON.parse((await request(base, '/api/trpc/clusters.list', { cookie })).body) as {
        result: { data: { id: string }[] };
      }
    ).result.data[0].id;
    const live = liveSocket(base, cookie, clusterId);
    try {
      await eventually(() => live.snapshots.length === 1, 'the first snapshot');
      const node = [...live.nodes.keys()][0];
      for (const how of ['SIGKILL', 'SIGTERM'] as const) {
        const serving = replicaOf((await whoServes(base, cookie))!)!;
        const snapshots = live.snapshots.length;
        const at = Date.now();
        serving.signal(how);
        // back on another replica: it numbers its feed its own way, so the resume gets a snapshot
        await eventually(() => live.snapshots.length > snapshots, `reconnected after ${how}`, 30_000);
        console.log(`${how}: live again on another replica after ${Date.now() - at} ms`);
        await serving.exited;
        const now = replicaOf((await whoServes(base, cookie))!)!;
        expect(now.index).not.toBe(serving.index);
        expect(alive(now)).toBe(true);
        const last = live.snapshots.at(-1)!;
        expect(last.epoch).not.toBe(live.snapshots.at(-2)!.epoch);
        // and the room is live: a change in the cluster arrives as a delta
        const cordon = how === 'SIGKILL';
        await cluster.core.patchNode({ name: node, body: { spec: { unschedulable: cordon } } }, merge);
        await eventually(
          () => live.nodes.get(node)?.unschedulable === cordon,
          `the node's change after ${how}`,
          10_000,
        );
      }
      expect(live.refused).toEqual([]);
      expect(live.gaps).toBe(0);
    } finally {
      live.socket.close();
    }
  }, 120_000);
});

/** A socket.io client that behaves like the browser's (components/console/live.tsx). */
function liveSocket(base: string, cookie: string, cluster: string) {
  const socket: Socket = io(base, {
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnectionDelay: 200,
    reconnectionDelayMax: 1000,
    extraHeaders: { cookie, origin: base },
  });
  const s = {
    socket,
    nodes: new Map<string, NodeView>(),
    snapshots: [] as Snapshot<NodeView>[],
    last: undefined as { seq: number; epoch?: string } | undefined,
    refused: [] as string[],
    gaps: 0,
  };
  socket.on('connect', () => socket.emit(SocketEvents.subscribe, subscribeRequest(cluster, 'nodes', s.last)));
  socket.on('connect_error', (e) => {
    if (/unauthenticated/.test(e.message)) s.refused.push(e.message);
  });
  socket.on('disconnect', (reason) => {
    if (afterDisconnect(reason) === 'reconnect')
      setTimeout(() => socket.connect(), reconnectDelayMs(Math.random()));
  });
  socket.on(SocketEvents.snapshot, (snap: Snapshot<NodeView>) => {
    s.snapshots.push(snap);
    s.nodes = new Map(snap.items.map((n) => [n.name, n]));
    s.last = { seq: snap.seq, epoch: snap.epoch };
  });
  socket.on(SocketEvents.delta, (d: Delta<NodeView>) => {
    if (!s.last || d.fromSeq !== s.last.seq) return void s.gaps++;
    for (const u of d.upserts) s.nodes.set(u.name, u);
    for (const k of d.deletes) s.nodes.delete(k);
    s.last = { ...s.last, seq: d.seq };
  });
  return s;
}
