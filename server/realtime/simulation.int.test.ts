// The embedded cluster's ground truth in the console: ghosts appear when a partitioned
// node keeps running a pod the API gave up on, and a pod's termination steps are pushed
// to whoever watches it, as they happen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Socket } from 'socket.io-client';
import { socketClient, tokenOf } from '../test/client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GhostsMessage, SimEvents, type TerminationStepMessage } from '../../lib/console/protocol.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { type EmbeddedCluster, backendFromEnv, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { MAX_WATCHED_TERMINATIONS } from './simulation.js';
import { serviceAccountReady } from '../test/namespaces.js';

let dir: string;
let cluster: EmbeddedCluster;
let consoleServer: Console;
let socket: Socket;
let core: k8s.CoreV1Api;
const CLUSTER = 'palisade-embedded';
const ghosts: GhostsMessage[] = [];
const steps: TerminationStepMessage[] = [];
const latest = () => ghosts.at(-1);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-sim-hub-'));
  const scenario = parseScenario(
    `name: sim-hub-test\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-a, racks: [{ name: a1, count: 2 }] }]\nworkloads: []\n`,
    'sim hub test',
  );
  cluster = await startEmbeddedCluster({
    scenario,
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  // the tests create pods in "default"
  await serviceAccountReady(cluster.kc.makeApiClient(k8s.CoreV1Api), 'default');
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  consoleServer = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
  });
  await Promise.all([...consoleServer.clusters.values()].map((c) => c.synced()));
  socket = socketClient(consoleServer.url, tokenOf(cluster.kc));
  socket.on(SimEvents.ghosts, (m: GhostsMessage) => ghosts.push(m));
  socket.on(SimEvents.terminationStep, (m: TerminationStepMessage) => steps.push(m));
  await eventually(() => socket.connected, 'socket connected');
});

afterAll(async () => {
  socket?.close();
  await consoleServer?.stop();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function runningPod(name: string, graceSeconds: number) {
  await core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name, annotations: { 'sim.palisade.dev/prestop-ms': '300' } },
      spec: { terminationGracePeriodSeconds: graceSeconds, containers: [{ name: 'app', image: 'app:1' }] },
    },
  });
  return eventually(async () => {
    const p = await core.readNamespacedPod({ namespace: 'default', name });
    return p.status?.phase === 'Running' ? p : undefined;
  }, `${name} Running`);
}

describe('ghosts', () => {
  it('follows a partitioned node: unseen, then critical once the pod is force-deleted, gone after heal', async () => {
    const pod = await runningPod('ghost', 30);
    const node = pod.spec!.nodeName!;
    const reply = await socket.emitWithAck(SimEvents.watchGhosts, { cluster: CLUSTER });
    expect(reply).toEqual({ ok: true });
    await eventually(() => latest()?.synced && latest()!.processes >= 1, 'the ground truth read');
    expect(latest()!.ghosts).toEqual([]);

    cluster.infra.partition(node);
    const unseen = await eventually(
      () => latest()?.ghosts.find((g) => g.podName === 'ghost' && g.reason === 'node-unseen'),
      'an unseen process once the node is Unknown',
      15_000,
    );
    expect(unseen).toMatchObject({ node, critical: false, podUid: pod.metadata!.uid });

    await core.deleteNamespacedPod({ namespace: 'default', name: 'ghost', gracePeriodSeconds: 0 });
    const orphan = await eventually(
      () => latest()?.ghosts.find((g) => g.podName === 'ghost' && g.reason === 'pod-deleted'),
      'a critical ghost once the pod object is gone',
    );
    expect(orphan.message).toMatch(/still runs, but its pod is gone from the API/);

    cluster.infra.heal(node);
    await eventually(
      () => latest()?.ghosts.every((g) => g.podName !== 'ghost'),
      'no ghost once the healed kubelet stops the orphan',
      15_000,
    );
  });

  it('refuses a cluster without a ground truth, and bad input, saying why', async () => {
    expect(await socket.emitWithAck(SimEvents.watchGhosts, { cluster: 'nope' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/cluster "nope" has no ground truth/),
    });
    expect(await socket.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/podUid/),
    });
  });

  it('a socket watches a bounded number of terminations, each named by a uid no longer than a pod uid', async () => {
    // found by server/test/fuzzConsole.int.test.ts: any uid (of any length) was a room of its own,
    // so one socket could join rooms until the server ran out of memory
    const s = socketClient(consoleServer.url, tokenOf(cluster.kc));
    try {
      await eventually(() => s.connected, 'connected');
      for (let i = 0; i < MAX_WATCHED_TERMINATIONS; i++)
        expect(
          await s.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: `uid-${i}` }),
        ).toEqual({ ok: true });
      expect(
        await s.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: 'one-more' }),
      ).toMatchObject({
        ok: false,
        error: expect.stringContaining('unwatch one first'),
      });
      // watching one again is no new room; unwatching makes room
      expect(await s.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: 'uid-0' })).toEqual({
        ok: true,
      });
      s.emit(SimEvents.unwatchTermination, { cluster: CLUSTER, podUid: 'uid-0' });
      expect(
        await s.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: 'one-more' }),
      ).toEqual({ ok: true });
      expect(
        await s.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: 'u'.repeat(129) }),
      ).toMatchObject({
        ok: false,
        error: expect.stringContaining('podUid'),
      });
    } finally {
      s.close();
    }
  });

  it('a last argument that is not a callback is ignored, not an uncaught exception', async () => {
    // socket.io hands the last argument over as the acknowledgement: a client may send anything there
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => crashes.push(e);
    process.on('uncaughtExceptionMonitor', onCrash);
    try {
      socket.emit(SimEvents.watchGhosts, { cluster: CLUSTER }, 'not a callback');
      socket.emit(SimEvents.watchTermination, { cluster: CLUSTER, podUid: 'some-uid' }, 42);
      // a round trip after them: both have been handled
      expect(await socket.emitWithAck(SimEvents.watchGhosts, { cluster: 'nope' })).toMatchObject({
        ok: false,
      });
      expect(crashes).toEqual([]);
      expect(socket.connected).toBe(true);
    } finally {
      process.off('uncaughtExceptionMonitor', onCrash);
    }
  });
});

describe('termination steps', () => {
  it('pushes each kubelet step of a watched pod as it happens, and nothing of others', async () => {
    const watched = await runningPod('watched', 5);
    const other = await runningPod('other', 5);
    const uid = watched.metadata!.uid!;
    expect(await socket.emitWithAck(SimEvents.watchTermination, { cluster: CLUSTER, podUid: uid })).toEqual({
      ok: true,
    });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'watched' });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'other' });
    await eventually(() => steps.some((s) => s.step === 'removed'), 'the final removal step', 15_000);
    const names = steps.map((s) => s.step);
    expect(names.indexOf('preStop-started')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('preStop-started')).toBeLessThan(names.indexOf('SIGTERM'));
    expect(names.indexOf('SIGTERM')).toBeLessThan(names.indexOf('removed'));
    expect(steps.every((s) => s.podUid === uid && s.cluster === CLUSTER)).toBe(true);
    expect(steps.some((s) => s.podUid === other.metadata!.uid)).toBe(false);
  });
});
