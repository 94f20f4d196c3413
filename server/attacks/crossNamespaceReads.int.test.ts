// Attack (issue 23, 6): a person limited to one namespace reads other namespaces' objects. The
// console checked only the cluster-scoped object a query is named after: whoever may get a node
// read every pod on it (nodes.get), and whoever may list PersistentVolumes read the claims, pods
// and Events of every namespace behind them (volumes.list, volumes.get). Now every query that
// returns namespaced objects returns them only from namespaces where the person may list them.
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
import { tokenOf, trpcClient } from '../test/client.js';
import { serviceAccountReady } from '../test/namespaces.js';
import { limitedPerson } from './harness.js';

const CLUSTER = 'palisade-embedded';
const NODE = 'x1-1';
let dir: string;
let cluster: EmbeddedCluster;
let c: Console;
let shop: ReturnType<typeof trpcClient>;
let admin: ReturnType<typeof trpcClient>;

const scenario = `
name: attack-namespaces
${tinyDurations}
nodes:
  zones: [{ name: zone-x, racks: [{ name: x1, count: 1 }] }]
storageClasses:
  - name: san-rwo
    bindingMode: WaitForFirstConsumer
workloads:
  - kind: StatefulSet
    name: web
    namespace: shop
    replicas: 1
    volume: { storageClass: san-rwo, size: 1Gi, accessMode: ReadWriteOnce }
  - kind: StatefulSet
    name: db
    namespace: blog
    replicas: 1
    volume: { storageClass: san-rwo, size: 1Gi, accessMode: ReadWriteOnce }
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-attack-ns-'));
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(scenario, 'attack namespaces'),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
  });
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  for (const ns of ['shop', 'blog']) await serviceAccountReady(core, ns);
  // may view shop; cluster-wide, may read nodes and PersistentVolumes (cluster-scoped) only
  const person = await limitedPerson(cluster.kc, 'shop', 'shop-reader', [
    { apiGroups: [''], resources: ['nodes', 'persistentvolumes'], verbs: ['get', 'list', 'watch'] },
  ]);
  // the node's story, told where kubelets and controllers tell it: namespace default, whose
  // Events the shop reader may not list
  await core.createNamespacedEvent({
    namespace: 'default',
    body: {
      metadata: { name: `${NODE}.blog-secret` },
      involvedObject: { kind: 'Node', name: NODE },
      reason: 'BlogSecret',
      message: 'blog-only detail',
      type: 'Warning',
      source: { component: 'kubelet' },
      firstTimestamp: new Date(),
      lastTimestamp: new Date(),
      count: 1,
    },
  });
  c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    fencing: false,
  });
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  shop = trpcClient(c.url, person.token);
  admin = trpcClient(c.url, tokenOf(cluster.kc));
  await eventually(
    async () => {
      const { pods } = await admin.nodes.get.query({ cluster: CLUSTER, name: NODE });
      const rows = (await admin.volumes.list.query({ cluster: CLUSTER })).rows;
      return (
        pods.some((p) => p.namespace === 'blog') &&
        pods.some((p) => p.namespace === 'shop') &&
        rows.filter((r) => r.claim && r.users.length).length === 2
      );
    },
    'both pods running with their volumes',
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await c?.stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a person limited to namespace shop', () => {
  it('nodes.get shows the node and its shop pods only', async () => {
    const r = await shop.nodes.get.query({ cluster: CLUSTER, name: NODE });
    expect(r.node.name).toBe(NODE);
    expect(r.pods.map((p) => p.namespace)).toEqual(['shop']);
    expect(r.hiddenPods).toBeGreaterThanOrEqual(1);
  });

  it('nodes.events leaves out Events of namespaces it may not list', async () => {
    const all = await eventually(async () => {
      const events = await admin.nodes.events.query({ cluster: CLUSTER, name: NODE });
      return events.some((e) => e.reason === 'BlogSecret') ? events : undefined;
    }, 'the node Event in the console');
    expect(all.length).toBeGreaterThan(0);
    const mine = await shop.nodes.events.query({ cluster: CLUSTER, name: NODE });
    expect(mine.some((e) => e.reason === 'BlogSecret')).toBe(false);
    expect(mine.every((e) => e.namespace === 'shop')).toBe(true);
  });

  it('volumes.list shows only volumes whose claims are in shop, with their pods', async () => {
    const r = await shop.volumes.list.query({ cluster: CLUSTER });
    const claims = r.rows.flatMap((row) => (row.claim ? [row.claim.namespace] : []));
    expect(claims).toEqual(['shop']);
    const pods = r.rows.flatMap((row) => [...row.users, ...row.waiters].map((p) => p.namespace));
    expect(pods.every((ns) => ns === 'shop')).toBe(true);
    expect(JSON.stringify(r)).not.toContain('blog');
    expect(r.hidden).toBe(1);
  });

  it('volumes.get of a volume bound in blog is refused in the cluster’s words', async () => {
    const rows = (await admin.volumes.list.query({ cluster: CLUSTER })).rows;
    const blog = rows.find((row) => row.claim?.namespace === 'blog')!;
    await expect(shop.volumes.get.query({ cluster: CLUSTER, name: blog.pv })).rejects.toThrow(
      /cannot list resource "persistentvolumeclaims" in API group "" in the namespace "blog"/,
    );
    const own = rows.find((row) => row.claim?.namespace === 'shop')!;
    const r = await shop.volumes.get.query({ cluster: CLUSTER, name: own.pv });
    expect(r.row.claim?.namespace).toBe('shop');
    expect(r.events.every((e) => e.namespace === 'shop')).toBe(true);
  });

  it('the admin still sees everything', async () => {
    const r = await admin.volumes.list.query({ cluster: CLUSTER });
    expect(new Set(r.rows.flatMap((row) => (row.claim ? [row.claim.namespace] : [])))).toEqual(
      new Set(['shop', 'blog']),
    );
    expect(r.hidden).toBeUndefined();
  });
});
