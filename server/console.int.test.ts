// The console server against the embedded cluster: live node views over socket.io
// (snapshot, deltas, resume), and the tRPC API (pod details with the kubelet's
// termination steps, fault injection, input validation).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeView } from '../lib/console/protocol.js';
import { eventually } from '../sim/apiserver/test/harness.js';
import { type EmbeddedCluster, backendFromEnv, startEmbeddedCluster } from '../sim/cluster.js';
import { parseScenario } from '../sim/scenario/load.js';
import { tinyDurations } from '../sim/test/clusterHarness.js';
import { type Console, startConsole } from './console.js';
import { clustersFromKubeconfig } from './kube/kubeconfig.js';
import { serviceAccountReady } from './test/namespaces.js';
import { subscribe, tokenOf, trpcClient } from './test/client.js';

let dir: string;
let cluster: EmbeddedCluster;
let consoleServer: Console;
let trpc: ReturnType<typeof trpcClient>;
let token: string;
const CLUSTER = 'palisade-embedded';
/** KiB of a simulated snapshot still on its way to each socket (0: the real queues, which stay empty here) */
let simulatedSnapshotKiB = 0;
const inFlight = new Map<string, number>();
/** each socket's queue as if its snapshot were that big and drained 1 000 KiB a tick */
const simulatedQueue = (socket: { id: string }) => {
  if (!simulatedSnapshotKiB) return 0;
  const left = inFlight.get(socket.id) ?? simulatedSnapshotKiB;
  inFlight.set(socket.id, Math.max(0, left - 1_000));
  return left;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-console-'));
  const scenario = parseScenario(
    `name: console-test\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-a, racks: [{ name: a1, count: 3 }] }]\nworkloads: []\n`,
    'console test',
  );
  cluster = await startEmbeddedCluster({
    scenario,
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  // the tests create pods in "default"
  await serviceAccountReady(cluster.kc.makeApiClient(k8s.CoreV1Api), 'default');
  const [embedded] = await clustersFromKubeconfig(join(dir, 'kubeconfig'));
  // the same API as a cluster with no infrastructure API, as a real one would be
  const plain = { ...embedded, id: 'plain', infra: undefined };
  // the same cluster again under the two guarded modes palisade.yaml can set
  const guarded = { ...embedded, id: 'guarded', mode: 'protected' as const };
  const frozen = { ...embedded, id: 'frozen', mode: 'read-only' as const };
  // and once with credentials the API server rejects
  const locked = new k8s.KubeConfig();
  locked.loadFromString(embedded.kc.exportConfig().replace(cluster.apiserver.token, 'not-the-token'));
  const rejected = { ...embedded, id: 'rejected', kc: locked, infra: undefined };
  consoleServer = await startConsole({
    clusters: [embedded, plain, guarded, frozen, rejected],
    ui: false,
    hub: { intervalMs: 100, queued: simulatedQueue },
  });
  token = tokenOf(cluster.kc);
  trpc = trpcClient(consoleServer.url, token);
  await Promise.all(
    [...consoleServer.clusters.values()].filter((c) => c.id !== 'rejected').map((c) => c.synced()),
  );
});

afterAll(async () => {
  await consoleServer?.stop();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

const nodeKey = (n: NodeView) => n.name;

describe('live nodes over socket.io', () => {
  it('sends a snapshot, then the partitioned node going Unknown as a delta', async () => {
    const started = Date.now();
    const sub = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey);
    try {
      await eventually(() => sub.snapshots.length === 1, 'a snapshot');
      expect(sub.snapshots[0].items.map((n) => n.name).sort()).toEqual(['a1-1', 'a1-2', 'a1-3']);
      await eventually(() => sub.health.length > 0, 'a health event');
      expect(sub.health[0]).toMatchObject({ cluster: CLUSTER, embedded: true, mode: 'normal' });
      await eventually(() => [...sub.items.values()].every((n) => n.ready === 'Ready'), 'all nodes Ready');
      await trpc.infra.act.mutate({ cluster: CLUSTER, node: 'a1-2', verb: 'partition' });
      await eventually(() => sub.items.get('a1-2')?.ready === 'Unknown', 'a1-2 Unknown', 10_000);
      expect(sub.items.get('a1-1')?.ready).toBe('Ready');
      expect(sub.gaps).toBe(0);
      // coalesced: lease renewals of three nodes every 400 ms, yet at most one delta per 100 ms
      expect(sub.deltas.length).toBeGreaterThan(0);
      expect(sub.deltas.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 100) + 1);
    } finally {
      sub.close();
    }
  });

  it('a snapshot that takes a while to reach the browser does not make it slow: no second snapshot', async () => {
    // 150 000 pods are a 50 MB snapshot: the socket's queue holds it for seconds. Counted as
    // falling behind, the next delta earned the socket another whole snapshot once it drained,
    // and again, for as long as the map was open (RSS 0.6 -> 1.8 GiB at that size)
    simulatedSnapshotKiB = 30_000;
    const sub = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey);
    try {
      await eventually(() => sub.snapshots.length === 1, 'a snapshot');
      // lease renewals: node deltas keep coming while the snapshot drains (3 s), and after it
      await eventually(() => sub.deltas.length >= 3, 'deltas while the snapshot drains', 10_000);
      await eventually(() => inFlight.get(sub.socket.id!) === 0, 'the snapshot drained', 10_000);
      const deltas = sub.deltas.length;
      await eventually(() => sub.deltas.length > deltas + 2, 'deltas after it', 10_000);
      expect(sub.snapshots).toHaveLength(1);
      expect(sub.gaps).toBe(0);
    } finally {
      sub.close();
      simulatedSnapshotKiB = 0;
      inFlight.clear();
    }
  });

  it('a client resuming from its last seq gets only the deltas it missed', async () => {
    const first = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey);
    await eventually(() => first.seq !== undefined, 'first snapshot');
    const seenUpTo = first.seq!;
    const items = first.items;
    first.close();
    await trpc.infra.act.mutate({ cluster: CLUSTER, node: 'a1-2', verb: 'heal' });
    // leave time for deltas to pile up while nobody listens
    await eventually(
      () => consoleServer.clusters.get(CLUSTER)!.cache.node('a1-2')?.ready === 'Ready',
      'a1-2 Ready again in the cache',
    );
    const again = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey, seenUpTo);
    again.items = items;
    try {
      await eventually(() => again.items.get('a1-2')?.ready === 'Ready', 'a1-2 Ready via resumed deltas');
      expect(again.snapshots).toHaveLength(0);
      expect(again.deltas[0].fromSeq).toBe(seenUpTo);
      expect(again.gaps).toBe(0);
    } finally {
      again.close();
    }
  });

  it('a client resuming from a seq the server never gave gets a snapshot', async () => {
    const sub = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey, 1);
    try {
      await eventually(() => sub.snapshots.length === 1, 'a snapshot instead of deltas');
    } finally {
      sub.close();
    }
  });

  it('answers a bad subscribe with an error naming the field', async () => {
    const sub = subscribe<NodeView>(consoleServer.url, token, CLUSTER, 'nodes', nodeKey);
    try {
      await eventually(() => sub.socket.connected, 'connected');
      const reply = await sub.socket.emitWithAck('subscribe', { cluster: CLUSTER, kind: 'volumes' });
      expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('kind') });
      const unknown = await sub.socket.emitWithAck('subscribe', { cluster: 'nope', kind: 'pods' });
      expect(unknown.error).toMatch(/cluster: unknown cluster "nope"/);
    } finally {
      sub.close();
    }
  });
});

describe('tRPC', () => {
  it('lists the clusters with their health', async () => {
    const list = await trpc.clusters.list.query();
    expect(list.map((c) => [c.id, c.embedded, c.mode])).toEqual([
      [CLUSTER, true, 'normal'],
      ['plain', false, 'normal'],
      ['guarded', true, 'protected'],
      ['frozen', true, 'read-only'],
      ['rejected', false, 'normal'],
    ]);
    expect(list[0].health.informers.map((i) => i.kind)).toContain('volumeattachments');
    expect(list[0].health.informers.every((i) => i.synced)).toBe(true);
  });

  it('says in plain words why a cluster cannot be read', async () => {
    const rejected = await eventually(async () => {
      const c = (await trpc.clusters.list.query()).find((x) => x.id === 'rejected');
      return c?.health.informers.find((i) => i.lastError) ? c : undefined;
    }, 'an informer error for the rejected cluster');
    expect(rejected.health.informers.every((i) => !i.synced)).toBe(true);
    expect(rejected.health.informers.find((i) => i.lastError)?.lastError).toMatch(
      /^401 Unauthorized: the API server rejected the kubeconfig's credentials/,
    );
  });

  it('pods.get tells the termination story after the pod is deleted', async () => {
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'story', annotations: { 'sim.palisade.dev/prestop-ms': '200' } },
        spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'app:1' }] },
      },
    });
    const running = await eventually(async () => {
      const p = await trpc.pods.get.query({ cluster: CLUSTER, namespace: 'default', name: 'story' });
      return p.pod.state === 'Ready' ? p : undefined;
    }, 'story Ready');
    expect(running.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(running.containerStatuses[0]).toMatchObject({ name: 'app', state: 'running' });
    const nodeName = running.pod.node!;
    const onNode = await trpc.nodes.get.query({ cluster: CLUSTER, name: nodeName });
    expect(onNode.pods.map((p) => p.name)).toContain('story');

    await core.deleteNamespacedPod({ namespace: 'default', name: 'story' });
    const gone = await eventually(async () => {
      const p = await trpc.pods.get.query({ cluster: CLUSTER, namespace: 'default', name: 'story' });
      return p.deleted && p.termination?.steps.some((s) => s.step === 'removed') ? p : undefined;
    }, 'story removed, with its timeline');
    const steps = gone.termination!.steps.map((s) => s.step);
    expect(steps.indexOf('preStop-started')).toBeLessThan(steps.indexOf('SIGTERM'));
    expect(gone.pod.uid).toBe(running.pod.uid);
  });

  it('pods.get says when the pod left its Service and when it was gone from the API', async () => {
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'shop' }, spec: { selector: { app: 'shop' }, ports: [{ port: 80 }] } },
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {
          name: 'served',
          labels: { app: 'shop' },
          annotations: { 'sim.palisade.dev/prestop-ms': '500' },
        },
        spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'app:1' }] },
      },
    });
    const conn = consoleServer.clusters.get(CLUSTER)!;
    const ready = await eventually(async () => {
      const p = await trpc.pods.get.query({ cluster: CLUSTER, namespace: 'default', name: 'served' });
      const inSlice = [...conn.informers.endpointSlices.values()].some((s) =>
        s.endpoints.some((e) => e.podUid === p.pod.uid && e.ready),
      );
      return p.pod.state === 'Ready' && inSlice ? p : undefined;
    }, 'served Ready and in the Service');
    const asked = Date.now();
    await core.deleteNamespacedPod({ namespace: 'default', name: 'served' });
    const gone = await eventually(async () => {
      const p = await trpc.pods.get.query({ cluster: CLUSTER, namespace: 'default', name: 'served' });
      return p.deleted && p.deletedAt !== undefined ? p : undefined;
    }, 'served gone');
    expect(gone.pod.uid).toBe(ready.pod.uid);
    const left = gone.endpoints.find((e) => e.change === 'terminating');
    expect(left).toMatchObject({ service: 'shop' });
    // out of the load balancer at once, in parallel with preStop, well before the pod was gone
    expect(left!.at).toBeGreaterThanOrEqual(asked);
    expect(left!.at).toBeLessThan(gone.deletedAt!);
  });

  it.each([
    ['nodes.get', () => trpc.nodes.get.query({ cluster: CLUSTER, name: '' }), /name: name is required/],
    ['pods.get', () => trpc.pods.get.query({ cluster: CLUSTER, name: 'x' } as any), /namespace:/],
    [
      'infra.act',
      () => trpc.infra.act.mutate({ cluster: CLUSTER, node: 'a1-1', verb: 'explode' as any }),
      /verb:/,
    ],
  ])('%s rejects invalid input naming the field', async (_name, call, message) => {
    await expect(call()).rejects.toThrow(message);
  });

  it('refuses infrastructure actions on a cluster without an infrastructure API', async () => {
    await expect(
      trpc.infra.act.mutate({ cluster: 'plain', node: 'a1-1', verb: 'partition' }),
    ).rejects.toThrow(/not Palisade's embedded cluster/);
  });

  it('records each simulated fault as a Kubernetes Event on the node', async () => {
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    const done = await trpc.infra.act.mutate({ cluster: CLUSTER, node: 'a1-3', verb: 'kubelet-restart' });
    expect(done).toMatchObject({ verb: 'kubelet-restart', recorded: true });
    const events = await core.listNamespacedEvent({ namespace: 'default' });
    const mine = events.items.filter(
      (e) =>
        e.involvedObject.kind === 'Node' &&
        e.involvedObject.name === 'a1-3' &&
        e.reason === 'SimulatedKubeletRestart',
    );
    expect(mine).toHaveLength(1);
    expect(mine[0].message).toMatch(/Palisade console \(simulation\): kubelet restarted/);
    // and the console's own event cache has it for the node
    await eventually(
      () => consoleServer.clusters.get(CLUSTER)!.cache.eventsFor('Node', '', 'a1-3').length > 0,
      'the event in the cache',
    );
  });

  it('a read-only cluster refuses every action and nothing happens', async () => {
    await expect(
      trpc.infra.act.mutate({ cluster: 'frozen', node: 'a1-1', verb: 'partition', confirm: 'a1-1' }),
    ).rejects.toThrow(/cluster "frozen" is read-only/);
    expect(cluster.infra.reachable('a1-1')).toBe(true);
  });

  it('a protected cluster acts only when the node is named again', async () => {
    await expect(trpc.infra.act.mutate({ cluster: 'guarded', node: 'a1-3', verb: 'heal' })).rejects.toThrow(
      /cluster "guarded" is protected: confirm by typing "a1-3"/,
    );
    await expect(
      trpc.infra.act.mutate({ cluster: 'guarded', node: 'a1-3', verb: 'heal', confirm: 'a1-' }),
    ).rejects.toThrow(/does not match "a1-3"/);
    const done = await trpc.infra.act.mutate({
      cluster: 'guarded',
      node: 'a1-3',
      verb: 'heal',
      confirm: 'a1-3',
    });
    expect(done).toMatchObject({ node: 'a1-3', verb: 'heal', recorded: true });
  });

  it('names unknown clusters and nodes', async () => {
    await expect(trpc.nodes.get.query({ cluster: 'nope', name: 'a1-1' })).rejects.toThrow(
      /unknown cluster "nope"/,
    );
    await expect(trpc.nodes.get.query({ cluster: CLUSTER, name: 'zz' })).rejects.toThrow(
      /node "zz" not found/,
    );
    await expect(trpc.infra.act.mutate({ cluster: CLUSTER, node: 'zz', verb: 'partition' })).rejects.toThrow(
      /infrastructure:/,
    );
  });
});

describe('without a UI build', () => {
  it('still serves the APIs and tells how to build the pages', async () => {
    const spec = consoleServer.clusters.get(CLUSTER)!.spec;
    const c = await startConsole({ clusters: [spec], ui: { dir } });
    try {
      // pages need a session first; the sign-in page itself says how to build the UI
      const page = await fetch(`${c.url}/`, { redirect: 'manual' });
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe('/signin?next=%2F');
      const signin = await fetch(`${c.url}/signin`);
      expect(signin.status).toBe(503);
      expect(await signin.text()).toMatch(/npm run build/);
      expect((await trpcClient(c.url, token).clusters.list.query()).map((x) => x.id)).toEqual([CLUSTER]);
    } finally {
      await c.stop();
    }
  });
});
