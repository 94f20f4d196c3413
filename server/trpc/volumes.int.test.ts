// The RWO attach view against a whole cluster: a StatefulSet pod with an RWO volume runs on a
// node that is then partitioned; the pod is force-deleted and its replacement waits on
// another node. volumes.list must show the old node still attached, the replacement waiting
// with a Multi-Attach age, the force-detach countdown, the split-brain risk and, from the
// ground truth, the old node still writing; the volumes feed must tell watchers.
// PALISADE_CLUSTER=real: the same on etcd + kube-apiserver + kube-controller-manager
// (their maxWaitForUnmountDuration is fixed at 6 minutes, so the wait outlasts the test too).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Server as SocketServer } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { signedIn, tokenOf } from '../test/client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveAck, type LiveChanged, LiveEvents } from '../../lib/console/live.js';
import { LiveChannel } from '../realtime/live.js';
import type { RwoRow } from '../../lib/volumes/rwoTypes.js';
import { eventually, onRealControlPlane } from '../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { rwoDatabaseScenario } from '../../sim/test/clusterHarness.js';
import { type Console, startConsole } from '../console.js';
import { nodeFault } from '../kube/infra.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { VolumesFeed } from '../realtime/volumes.js';
import { serviceAccountReady } from '../test/namespaces.js';
import type { VolumeClusterSpec } from '../volumes/rows.js';
import { volumesRouter } from './volumes.js';

// the embedded force detach waits 10 minutes here
// (kube-controller-manager's is fixed at 6): the waiting state must outlast the test
const scenario = rwoDatabaseScenario({ name: 'volumes-test', durations: { forceDetachTimeout: '10m' } });
const MAX_WAIT_MS = onRealControlPlane ? 6 * 60_000 : 10 * 60_000;
const CLUSTER = 'palisade-embedded';

let dir: string;
let cluster: EmbeddedCluster;
let consoleServer: Console;
let core: k8s.CoreV1Api;
let api: ReturnType<typeof volumesRouter.createCaller>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-volumes-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(scenario, 'volumes test'),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await serviceAccountReady(core, 'shop');
  const [embedded] = await clustersFromKubeconfig(join(dir, 'kubeconfig'));
  const spec: VolumeClusterSpec = { ...embedded, forceDetach: { enabled: true, maxWaitMs: MAX_WAIT_MS } };
  consoleServer = await startConsole({ clusters: [spec], ui: false });
  await Promise.all([...consoleServer.clusters.values()].map((c) => c.synced()));
  api = volumesRouter.createCaller(await signedIn(consoleServer, tokenOf(cluster.kc)));
});

afterAll(async () => {
  await consoleServer?.stop();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

const webRow = async (): Promise<RwoRow | undefined> =>
  (await api.list({ cluster: CLUSTER })).rows.find((r) => r.claim?.name === 'data-web-0');

/** A socket.io server with only the volumes feed, on the console's connections. */
async function feedServer() {
  const server = http.createServer();
  const io = new SocketServer(server, { path: '/socket.io', serveClient: false });
  const channel = new LiveChannel(io);
  const feed = new VolumesFeed(channel, consoleServer.clusters, 50);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async stop() {
      feed.stop();
      channel.stop();
      io.disconnectSockets(true);
      server.closeAllConnections();
      await new Promise<void>((r) => io.close(() => r()));
    },
  };
}

describe('volumes.list and volumes.get', () => {
  it('validates its input and names unknown clusters and volumes', async () => {
    await expect(api.list({ cluster: '' })).rejects.toThrow(/cluster id is required/);
    await expect(api.list({ cluster: 'nope' })).rejects.toThrow(/unknown cluster "nope"/);
    await expect(api.get({ cluster: CLUSTER, name: 'no-such-pv' })).rejects.toThrow(
      /PersistentVolume "no-such-pv" not found/,
    );
  });

  it('a partitioned node keeps the volume while the replacement waits with a Multi-Attach age', async () => {
    const healthy = await eventually(
      async () => {
        const r = await webRow();
        return r?.risk === 'ok' && r.attachedTo.length === 1 && r.users[0]?.state === 'Ready' ? r : undefined;
      },
      'web-0 running with its volume attached',
      30_000,
    );
    const node = healthy.attachedTo[0];
    const list = await api.list({ cluster: CLUSTER });
    expect(list).toMatchObject({ embedded: true, synced: true, truth: { available: true } });
    expect(list.forceDetach).toEqual({ enabled: true, maxWaitMs: MAX_WAIT_MS, source: 'cluster' });
    expect(healthy).toMatchObject({ exclusive: true, accessModes: ['ReadWriteOnce'], waiters: [] });
    expect(healthy.users).toMatchObject([{ namespace: 'shop', name: 'web-0', node, terminating: false }]);
    expect(healthy.writers).toMatchObject([{ node, pod: 'shop/web-0', canWrite: true, api: 'user' }]);

    const feed = await feedServer();
    const socket = connect(feed.url, { path: '/socket.io', transports: ['websocket'], forceNew: true });
    const changes: string[] = [];
    try {
      socket.on(LiveEvents.changed, (m: LiveChanged) => m.topic === 'volumes' && changes.push(m.cluster));
      const ack: LiveAck = await socket
        .timeout(5_000)
        .emitWithAck(LiveEvents.watch, { topic: 'volumes', cluster: CLUSTER });
      expect(ack).toEqual({ ok: true, seq: expect.any(Number) });
      const refused = await socket
        .timeout(5_000)
        .emitWithAck(LiveEvents.watch, { topic: 'volumes', cluster: 'nope' });
      expect(refused).toEqual({ ok: false, error: 'cluster: unknown cluster "nope"' });
      const noFeed = await socket
        .timeout(5_000)
        .emitWithAck(LiveEvents.watch, { topic: 'fencing', cluster: CLUSTER });
      expect(noFeed).toEqual({ ok: false, error: 'topic: this server has no fencing feed' });

      // the infrastructure API, as the console's fault injection uses it
      await nodeFault(consoleServer.clusters.get(CLUSTER)!.spec.infra!, node, 'partition');
      await eventually(
        () => consoleServer.clusters.get(CLUSTER)!.cache.node(node)?.ready === 'Unknown',
        `${node} Unknown`,
        15_000,
      );
      await eventually(() => changes.includes(CLUSTER), 'a volumes signal', 10_000);
      const stuck = await eventually(async () => {
        const r = await webRow();
        return r?.risk === 'stuck' ? r : undefined;
      }, 'the volume held by the unreachable node');
      expect(stuck.attachments[0]).toMatchObject({ node, nodeHealth: 'unknown', attached: true });

      const old = await core.readNamespacedPod({ namespace: 'shop', name: 'web-0' });
      await core.deleteNamespacedPod({ namespace: 'shop', name: 'web-0', gracePeriodSeconds: 0 });
      const waiting = await eventually(
        async () => {
          const r = await webRow();
          return r?.waiters[0]?.reason === 'multi-attach' && r.waiters[0].uid !== old.metadata?.uid
            ? r
            : undefined;
        },
        'the replacement web-0 waiting for the volume',
        30_000,
      );
      const [waiter] = waiting.waiters;
      expect(waiter.node).not.toBe(node);
      expect(waiter).toMatchObject({ name: 'web-0', blockedBy: [node], nodeHealth: 'ready' });
      expect(waiter.since).toBeLessThanOrEqual(Date.now());
      expect(waiter.since).toBeGreaterThanOrEqual(Date.parse(String(old.metadata?.creationTimestamp)));
      expect(waiting.attachedTo).toEqual([node]);
      expect(waiting.users).toEqual([]);
      expect(waiting.risk).toBe('split-brain-risk');
      expect(waiting.explanation).toMatch(
        new RegExp(`^attached to suspect ${node} \\(unknown\\) while shop/web-0 waits`),
      );
      // the console saw the old pod go: kube-controller-manager's wait runs from about then
      const fd = waiting.attachments[0].forceDetach;
      expect(fd.state).toBe('counting');
      if (fd.state === 'counting') expect(fd.deadline - fd.since).toBe(MAX_WAIT_MS);
      expect(waiting.attachments[0].detachHint.safe).toBe(false);
      // ground truth: the old web-0 still runs and writes on the partitioned node
      expect(waiting.writers).toMatchObject([{ node, pod: 'shop/web-0', canWrite: true, api: 'gone' }]);

      const detail = await eventually(
        async () => {
          const d = await api.get({ cluster: CLUSTER, name: waiting.pv });
          return d.events.some((e) => e.message?.startsWith(`Multi-Attach error for volume "${waiting.pv}"`))
            ? d
            : undefined;
        },
        'the Multi-Attach event in the volume detail',
        15_000,
      );
      expect(detail.row.waiters.map((w) => w.uid)).toEqual([waiter.uid]);
      expect(detail.departed.map((d) => d.uid)).toContain(old.metadata?.uid);
    } finally {
      socket.close();
      await feed.stop();
    }
  });
});
