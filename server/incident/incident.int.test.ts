// The incident view against a whole cluster: a StatefulSet pod with an RWO volume runs on a node
// that is then partitioned (through the infrastructure API, as the console's fault injection
// does). incident.view must count the node and its pod, rank the pod at risk with its safe next
// action (fence the node first: no FencePolicy covers it; force delete is not safe), give the node
// a remediation row naming its VolumeAttachment, signal the incident topic's watchers, and drop the
// node once it is healed (its StatefulSet may take a while longer to report every replica ready).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { rwoDatabaseScenario } from '../../sim/test/clusterHarness.js';
import { type Console, startConsole } from '../console.js';
import { nodeFault } from '../kube/infra.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { signedIn, socketClient, tokenOf } from '../test/client.js';
import { serviceAccountReady } from '../test/namespaces.js';
import { incidentRouter } from '../trpc/incident.js';
import { type LiveChanged, LiveEvents } from '../../lib/console/live.js';

const CLUSTER = 'palisade-embedded';
let dir: string;
let cluster: EmbeddedCluster;
let consoleServer: Console;
let api: ReturnType<typeof incidentRouter.createCaller>;
let incidentName = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-incident-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(rwoDatabaseScenario({ name: 'incident-test' }), 'incident test'),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  await serviceAccountReady(cluster.kc.makeApiClient(k8s.CoreV1Api), 'shop');
  consoleServer = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    // resolved 5 s after the cluster is healthy again (60 s by default)
    incidents: { quietMs: 5_000 },
  });
  await Promise.all([...consoleServer.clusters.values()].map((c) => c.synced()));
  api = incidentRouter.createCaller(await signedIn(consoleServer, tokenOf(cluster.kc)));
});

afterAll(async () => {
  await consoleServer?.stop();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('incident.view', () => {
  it('validates its input', async () => {
    await expect(api.view({ cluster: '' })).rejects.toThrow(/cluster id is required/);
    await expect(api.view({ cluster: 'nope' })).rejects.toThrow(/unknown cluster "nope"/);
  });

  it('a partitioned node: counted, its pod at risk with a safe next action, remediation, then calm', {
    timeout: 150_000,
  }, async () => {
    const calm = await eventually(
      async () => {
        const v = await api.view({ cluster: CLUSTER });
        // every watch the view reads has listed once (the Incident watch starts a moment after the others)
        return v.calm && v.situation.workloadsBelowDesired === 0 && !v.freshness.stale ? v : undefined;
      },
      'a calm cluster with web-0 running',
      60_000,
    );
    expect(calm.freshness).toMatchObject({ stale: false });
    // its freshness covers every watch on the cluster's registry: the console's and the loops'
    // (the fencing controller's NodeFences and FencePolicies; protection's PodProtectors when on)
    const kinds = consoleServer.clusters
      .get(CLUSTER)!
      .watchActivity()
      .map((w) => w.kind);
    expect(kinds).toEqual(expect.arrayContaining(['nodes', 'pods', 'leases', 'nodefences', 'fencepolicies']));
    expect(calm.freshness.ageMs).toBeLessThan(10_000);
    const node = consoleServer.clusters.get(CLUSTER)!.cache.pod('shop', 'web-0')!.node!;
    await consoleServer.incident.sampleAll();
    expect(consoleServer.incident.samplesOf(CLUSTER).at(-1)?.counts.nodesNotReady).toBe(0);

    const socket = socketClient(consoleServer.url, tokenOf(cluster.kc));
    const pushes: string[] = [];
    socket.on(LiveEvents.changed, (m: LiveChanged) => m.topic === 'incident' && pushes.push(m.cluster));
    await eventually(() => socket.connected, 'socket connected', 5_000);
    expect(
      await socket.timeout(5_000).emitWithAck(LiveEvents.watch, { topic: 'incident', cluster: CLUSTER }),
    ).toMatchObject({ ok: true });
    try {
      await nodeFault(consoleServer.clusters.get(CLUSTER)!.spec.infra!, node, 'partition');
      const broken = await eventually(
        async () => {
          const v = await api.view({ cluster: CLUSTER });
          return v.situation.nodesNotReady === 1 && v.atRisk.some((r) => r.id === 'pod/shop/web-0')
            ? v
            : undefined;
        },
        `${node} counted and web-0 at risk`,
        30_000,
      );
      expect(broken.calm).toBe(false);
      expect(broken.situation.podsOnFailedNodes).toBeGreaterThanOrEqual(1);
      const row = broken.atRisk.find((r) => r.id === 'pod/shop/web-0')!;
      expect(row).toMatchObject({
        kinds: ['statefulset-identity-stuck', 'singleton-rwo-on-failed-node'],
        node,
        next: { action: 'fence-node', node, why: 'no-policy' },
        guard: { action: 'forceDeletePod', safe: false },
        guarded: { action: 'forceDeletePod', namespace: 'shop', name: 'web-0' },
      });
      expect(row.volumes).toHaveLength(1);
      expect(row.preconditions).toEqual(
        expect.arrayContaining([
          { code: 'policy-covers-node', met: false, subject: node },
          { code: 'node-fenced', met: false, subject: node },
        ]),
      );
      // capacity: the room the up nodes have (from their allocatable), and web-0's replacement
      const capacity = broken.capacity!;
      expect(capacity.zones.some((z) => z.up < z.nodes)).toBe(true);
      expect(capacity.zones.some((z) => (z.milliCpu?.total ?? 0) > 0)).toBe(true);
      expect(capacity.replacements.find((r) => r.stuck.includes('web-0'))).toMatchObject({
        workload: { kind: 'StatefulSet', namespace: 'shop', name: 'web' },
      });
      const rem = broken.remediation.find((r) => r.node === node)!;
      expect(rem).toMatchObject({
        state: 'unknown',
        outOfService: false,
        next: { step: 'fence-manually', why: 'no-policy' },
      });
      expect(rem.volumeAttachments).toHaveLength(1);
      expect(rem.volumeAttachments[0].pv).toBe(row.volumes[0]);
      expect(rem.since).toBeLessThanOrEqual(Date.now());
      // its headless Service lost its one endpoint: web-0 marked NotReady with its node
      const hit = await eventually(
        async () =>
          (await api.view({ cluster: CLUSTER })).services.find(
            (x) => x.namespace === 'shop' && x.service === 'web',
          ),
        'shop/web in the service impact',
        30_000,
      );
      expect(hit).toEqual({
        namespace: 'shop',
        service: 'web',
        ready: 0,
        endpoints: 1,
        notReady: [{ pod: 'shop/web-0', node, nodeDown: true }],
      });
      await eventually(() => pushes.includes(CLUSTER), 'an incident signal', 10_000);
      // the tracker declared an Incident, named after the node's Ready change, following it
      const declared = await eventually(
        async () => {
          // created, then its status written: two writes
          const i = (await api.view({ cluster: CLUSTER })).incident;
          // declared SEV3 for the node, raised as web goes 0/1 (moments later on a loaded machine)
          return i?.nodes.some((n) => n.name === node) && i.severity !== 'SEV3' ? i : undefined;
        },
        'an Incident declared, following the node, raised as web goes 0/1',
        30_000,
      );
      expect(declared).toMatchObject({
        declaredBy: 'palisade',
        severity: expect.stringMatching(/^SEV[12]$/),
      });
      expect(declared.resolvedAt).toBeUndefined();
      expect(declared.updates[0]).toMatchObject({ kind: 'Declared', by: 'palisade' });
      expect(declared.title).toMatch(/1\/\d+ nodes? down/);
      incidentName = declared.name;

      await consoleServer.incident.sampleAll();
      expect(consoleServer.incident.samplesOf(CLUSTER).at(-1)?.counts.nodesNotReady).toBe(1);
    } finally {
      await nodeFault(consoleServer.clusters.get(CLUSTER)!.spec.infra!, node, 'heal');
      socket.close();
    }
    await eventually(
      async () => {
        const v = await api.view({ cluster: CLUSTER });
        const back =
          v.situation.nodesNotReady === 0 &&
          v.remediation.length === 0 &&
          !v.atRisk.some((r) => r.node === node);
        return back ? true : undefined;
      },
      `${node} no longer counted, at risk or in remediation after the heal`,
      60_000,
    );
    // healthy for the quiet period: the tracker resolved it, and said so in an Event on it
    const resolved = await eventually(
      async () => {
        const i = (await api.view({ cluster: CLUSTER })).incident;
        return i?.name === incidentName && i.resolvedAt ? i : undefined;
      },
      `${incidentName} resolved`,
      60_000,
    );
    expect(resolved).toMatchObject({ resolvedBy: 'palisade' });
    expect(resolved.durationMs).toBe(resolved.resolvedAt! - resolved.startedAt);
    expect(resolved.nodes.find((n) => n.name === node)?.upAt).toBeDefined();
    expect(resolved.updates.at(-1)).toMatchObject({ kind: 'Resolved', by: 'palisade' });
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    const reasons = await eventually(
      async () => {
        const evs = await core.listNamespacedEvent({ namespace: 'default' });
        const mine = evs.items.filter((e) => e.involvedObject.name === incidentName).map((e) => e.reason);
        return mine.includes('IncidentResolved') ? mine : undefined;
      },
      'IncidentDeclared and IncidentResolved Events',
      20_000,
    );
    expect(reasons).toEqual(expect.arrayContaining(['IncidentDeclared', 'IncidentResolved']));
  });
});
