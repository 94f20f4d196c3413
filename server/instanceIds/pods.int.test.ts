// The embedded cluster's simulated pods that opt in take their instance IDs from the console's
// endpoint at start and give them back on SIGTERM, over HTTP with their own pod-bound tokens;
// the console tells them where it is through a ConfigMap. Issue 23: a pod evicted from an
// unreachable node keeps its ID while it may still run there; its replacement waits (the page
// says why) until the node is fenced, and the ground-truth checker never sees one ID held
// twice. On both back ends.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIdMap } from '../../lib/instanceIds/map.js';
import {
  INSTANCE_IDS_CONFIGMAP,
  INSTANCE_IDS_CONFIGMAP_KEY,
  INSTANCE_IDS_LABEL,
  INSTANCE_IDS_URL_ENV,
} from '../../lib/instanceIds/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { Violation } from '../../sim/checker/checker.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { trpcClient } from '../test/client.js';
import { deployment, livePods, mapOf } from './test/helpers.js';

const NS = 'apps';
let h: ClusterAndConsole;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** as the scenario's `instanceIds: true` writes it */
const optedIn = (name: string, replicas: number) =>
  deployment(NS, name, replicas, {
    runs: true,
    labels: { [INSTANCE_IDS_LABEL]: 'true' },
    env: [
      {
        name: INSTANCE_IDS_URL_ENV,
        valueFrom: { configMapKeyRef: { name: INSTANCE_IDS_CONFIGMAP, key: INSTANCE_IDS_CONFIGMAP_KEY } },
      },
    ],
  });

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'ids-pods',
    rack: 'p',
    count: 3,
    console: { instanceIdNamespaces: [NS] },
  });
  core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  apps = h.cluster.kc.makeApiClient(k8s.AppsV1Api);
  await createReadyNamespace(core, NS);
}, 180_000);

afterAll(() => h?.stop());

const holders = (workload: string) =>
  h.cluster.infra.truth
    .running()
    .filter((p) => p.instanceId?.workload === workload)
    .map((p) => [p.instanceId!.id, p.podName] as const)
    .sort((a, b) => a[0] - b[0]);

const duplicates = (): Violation[] =>
  h.cluster.checker.list().filter((v) => v.invariant === 'unique-instance-id');

/** the map names exactly the live pods, and each runs holding that ID */
async function settled(name: string, replicas: number) {
  return eventually(
    async () => {
      const live = (await livePods(core, NS, name, replicas)).map((p) => p.metadata!.name!);
      const map = parseIdMap(await mapOf(apps, NS, name));
      const entries = [...map.map].sort((a, b) => a[0] - b[0]);
      const inMap = entries.map(([, pod]) => pod).sort();
      const truth = holders(`${NS}/Deployment/${name}`);
      return (
        map.ok &&
        JSON.stringify(inMap) === JSON.stringify(live.sort()) &&
        JSON.stringify(truth) === JSON.stringify(entries) &&
        entries
      );
    },
    `the map and the running pods of ${name} to agree`,
    60_000,
  );
}

describe('simulated pods that opt in', () => {
  it('learn the endpoint from the ConfigMap the console writes, take IDs at start, give them back on SIGTERM', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: optedIn('web', 3) });
    const cm = await eventually(
      () => core.readNamespacedConfigMap({ namespace: NS, name: INSTANCE_IDS_CONFIGMAP }),
      'the endpoint ConfigMap',
    );
    expect(cm.data?.[INSTANCE_IDS_CONFIGMAP_KEY]).toBe(h.console.url);
    const entries = await settled('web', 3);
    expect(entries.map(([id]) => id)).toEqual([0, 1, 2]);

    // a pod deleted: its program gives the ID back on SIGTERM, its replacement takes it
    const [gone] = entries.find(([id]) => id === 1)!.slice(1) as [string];
    await core.deleteNamespacedPod({ namespace: NS, name: gone });
    await eventually(
      async () => !(await mapOf(apps, NS, 'web'))?.includes(`"${gone}"`),
      `${gone} to give its ID back`,
    );
    const after = await settled('web', 3);
    expect(after.map(([id]) => id)).toEqual([0, 1, 2]);
    expect(after.map(([, pod]) => pod)).not.toContain(gone);
    // its answer may come after the replacement took the ID over (on a busy machine); the
    // program exits once it is in, so its pod (and the token bound to it) outlives the call
    const ids = h.cluster.fleet.apps;
    await eventually(
      () => {
        if (ids.counts.released >= 1) return true;
        throw new Error(`counts ${JSON.stringify(ids.counts)}, last error: ${ids.lastError ?? 'none'}`);
      },
      `${gone}'s release answered`,
      60_000,
    );
    expect(duplicates()).toEqual([]);
  }, 180_000);
});

describe("the simulated kubelet's environment", () => {
  it('holds a pod whose ConfigMap is missing in CreateContainerConfigError, and starts it once it is there', async () => {
    // not labelled: the console publishes nothing here, the test does
    const body = deployment(NS, 'waits', 1, {
      runs: true,
      env: [
        { name: 'FROM_MAP', valueFrom: { configMapKeyRef: { name: 'waits-config', key: 'greeting' } } },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
    });
    await apps.createNamespacedDeployment({ namespace: NS, body });
    const waiting = await eventually(async () => {
      const [p] = await livePods(core, NS, 'waits', 1);
      const w = p.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' && w;
    }, 'the pod waiting for its ConfigMap');
    expect(waiting.message).toBe('configmap "waits-config" not found');
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'waits-config' }, data: { other: 'x' } },
    });
    await eventually(async () => {
      const [p] = await livePods(core, NS, 'waits', 1);
      return (
        p.status?.containerStatuses?.[0]?.state?.waiting?.message ===
        `couldn't find key greeting in ConfigMap ${NS}/waits-config`
      );
    }, 'the pod waiting for the key');
    await core.patchNamespacedConfigMap(
      { namespace: NS, name: 'waits-config', body: { data: { greeting: 'hello' } } },
      merge,
    );
    await eventually(async () => {
      const [p] = await livePods(core, NS, 'waits', 1);
      return p.status?.phase === 'Running';
    }, 'the pod running');
  });
});

describe('issue 23: an instance ID is never held twice', () => {
  it('a pod evicted from an unreachable node keeps its ID until the node is fenced; its replacement waits, told why', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: optedIn('solo', 1) });
    const [[, first]] = await settled('solo', 1);
    const pod = await core.readNamespacedPod({ namespace: NS, name: first });
    const node = pod.spec!.nodeName!;
    // the replacement must run elsewhere: the API still thinks the node Ready for a while
    await core.patchNode({ name: node, body: { spec: { unschedulable: true } } }, merge);
    h.cluster.infra.partition(node);
    // the unreachable taint's eviction marks the pod Terminating; it still runs there
    const replacement = await eventually(
      async () => {
        const live = await livePods(core, NS, 'solo', 1);
        const r = live[0];
        return r.metadata!.name !== first && r.status?.phase === 'Running' && r.metadata!.name!;
      },
      'the replacement running on another node',
      60_000,
    );
    const admin = trpcClient(h.console.url, h.cluster.users.admin.token);
    const row = await eventually(
      async () => {
        const l = await admin.instanceIds.list.query({ cluster: 'palisade-embedded' });
        const r = l.rows.find((x) => x.key === `${NS}/Deployment/solo`);
        return r?.unconfirmed.length && r.waiting.includes(replacement) && r;
      },
      'the page to say why the replacement waits',
      30_000,
    );
    expect(row.unconfirmed).toEqual([
      {
        id: 0,
        pod: first,
        reason: 'node-unreachable',
        text: `${first} on ${node}: node unreachable (Ready=Unknown), not fenced`,
      },
    ]);
    // the replacement's program asks again and again: still no ID, and never two holders
    await new Promise((r) => setTimeout(r, 3_000));
    expect(holders(`${NS}/Deployment/solo`)).toEqual([[0, first]]);
    expect(duplicates()).toEqual([]);

    // fenced: powered off, and a NodeFence says so for this node and this boot
    const n = await core.readNode({ name: node });
    h.cluster.infra.powerOff(node);
    const custom = h.cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    const fenceApi = { group: 'palisade.dev', version: 'v1alpha1', plural: 'nodefences' };
    await custom.createClusterCustomObject({
      ...fenceApi,
      body: {
        apiVersion: 'palisade.dev/v1alpha1',
        kind: 'NodeFence',
        metadata: { name: node },
        spec: { nodeName: node, policy: 'by-hand' },
      },
    });
    await custom.patchClusterCustomObjectStatus(
      {
        ...fenceApi,
        name: node,
        body: {
          status: {
            phase: 'Fenced',
            nodeUid: n.metadata!.uid,
            nodeBootId: n.status!.nodeInfo!.bootID,
            fencedAt: new Date().toISOString(),
          },
        },
      },
      merge,
    );
    await eventually(
      () => JSON.stringify(holders(`${NS}/Deployment/solo`)) === JSON.stringify([[0, replacement]]),
      'the replacement to take ID 0 once the node is fenced',
      60_000,
    );
    expect(duplicates()).toEqual([]);

    await custom.deleteClusterCustomObject({ ...fenceApi, name: node });
    h.cluster.infra.heal(node);
    h.cluster.infra.powerOn(node);
    await core.patchNode({ name: node, body: { spec: { unschedulable: false } } }, merge);
    await settled('solo', 1);
  }, 180_000);
});

describe("the console's view (instanceIds.list and .get)", () => {
  const CLUSTER = 'palisade-embedded';

  it('shows each opted-in workload: its map, who holds what, stale entries and conflicts', async () => {
    const admin = trpcClient(h.console.url, h.cluster.users.admin.token);
    const entries = await settled('web', 3);
    const list = await eventually(async () => {
      const l = await admin.instanceIds.list.query({ cluster: CLUSTER });
      const web = l.rows.find((r) => r.key === `${NS}/Deployment/web`);
      return web?.entries.length === 3 && web.holders?.length === 3 && l;
    }, 'the web row with its three entries');
    expect(list.truth).toEqual({ available: true });
    const web = list.rows.find((r) => r.key === `${NS}/Deployment/web`)!;
    expect(web).toMatchObject({
      kind: 'Deployment',
      enabled: true,
      replicas: 3,
      valid: true,
      stale: [],
      conflicts: [],
    });
    expect(web.entries.map((e) => [e.id, e.pod, e.state])).toEqual(
      entries.map(([id, pod]) => [id, pod, 'held']),
    );
    expect(web.holders!.map((x) => [x.id, x.pod])).toEqual(entries);
    expect(web.duplicates).toEqual([]);

    // a stale entry and an out-of-range one, written by hand: shown, not hidden
    const raw = `{${entries.map(([id, pod]) => `"${id}":"${pod}"`).join(',')},"7":"gone-pod"}`;
    await apps.patchNamespacedDeployment(
      {
        namespace: NS,
        name: 'web',
        body: { metadata: { annotations: { 'palisade.dev/instance-ids': raw } } },
      },
      merge,
    );
    const row = await eventually(async () => {
      const l = await admin.instanceIds.list.query({ cluster: CLUSTER });
      const r = l.rows.find((x) => x.key === `${NS}/Deployment/web`);
      return r?.raw === raw && r;
    }, 'the hand-written map');
    expect(row.stale).toEqual([{ key: '7', id: 7, pod: 'gone-pod', state: 'gone' }]);
    expect(row.conflicts).toEqual([
      {
        kind: 'out-of-range',
        id: 7,
        pod: 'gone-pod',
        message: 'id 7 (gone-pod) is not below the replica count 3: released with the next write',
      },
    ]);

    const one = await admin.instanceIds.get.query({
      cluster: CLUSTER,
      namespace: NS,
      kind: 'Deployment',
      name: 'web',
    });
    expect(one).toMatchObject({ key: `${NS}/Deployment/web`, raw, enabled: true, replicas: 3 });
    expect(one.pods.filter((p) => p.id !== undefined)).toHaveLength(3);
  });

  it('answers only what the person may list', async () => {
    // a ServiceAccount with no role: signed in, but may list nothing
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'nobody' } } });
    const token = (
      await core.createNamespacedServiceAccountToken({
        namespace: NS,
        name: 'nobody',
        body: { spec: { audiences: [], expirationSeconds: 600 } },
      })
    ).status!.token;
    const nobody = trpcClient(h.console.url, token);
    expect((await nobody.instanceIds.list.query({ cluster: CLUSTER })).rows).toEqual([]);
    await expect(
      nobody.instanceIds.get.query({ cluster: CLUSTER, namespace: NS, kind: 'Deployment', name: 'web' }),
    ).rejects.toMatchObject({
      message: `deployments.apps "web" is forbidden: User "system:serviceaccount:${NS}:nobody" cannot get resource "deployments" in API group "apps" in the namespace "${NS}"`,
      data: { code: 'FORBIDDEN' },
    });
    // the viewer role lists workloads and pods everywhere
    const viewer = trpcClient(h.console.url, h.cluster.users.viewer.token);
    expect((await viewer.instanceIds.list.query({ cluster: CLUSTER })).rows.map((r) => r.key)).toContain(
      `${NS}/Deployment/web`,
    );
  });
});
