// The instance-ID collector (both back ends): on the leader, entries of pods known to have
// stopped (lib/guard/stopped.ts) are given back without any pod asking; entries of live pods
// stay, and so do the entries of pods nothing confirms stopped (the page says why), a map
// Palisade will not rewrite and the map of a workload that has not opted in.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANCE_IDS_ANNOTATION } from '../../lib/instanceIds/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { trpcClient } from '../test/client.js';
import { deployment, livePods, mapOf, NOWHERE, runningPods } from './test/helpers.js';

const NS = 'ids-gc';
let h: ClusterAndConsole;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const setMap = (name: string, map: string) =>
  apps.patchNamespacedDeployment(
    { namespace: NS, name, body: { metadata: { annotations: { [INSTANCE_IDS_ANNOTATION]: map } } } },
    merge,
  );

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'ids-collector',
    rack: 'g',
    count: 1,
    console: { instanceIdSweepMs: 500, instanceIdNamespaces: [NS] },
  });
  core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  apps = h.cluster.kc.makeApiClient(k8s.AppsV1Api);
  await createReadyNamespace(core, NS);
}, 180_000);

afterAll(() => h?.stop());

describe('the instance-ID collector', () => {
  it('gives back the IDs of pods known to have stopped, and keeps the others, saying why', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'gc', 2, { runs: true }) });
    // running: a pod not yet scheduled runs nowhere, and its ID would rightly be given back
    const [a, b] = await runningPods(core, NS, 'gc', 2);
    // a pod of the workload held by a finalizer stays, terminating, after its deletion: never
    // scheduled, it ran nowhere
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'gc-held', labels: { app: 'gc' }, finalizers: ['palisade.dev/test-hold'] },
        spec: { nodeSelector: NOWHERE, containers: [{ name: 'app', image: 'registry.example/app:1.0' }] },
      },
    });
    await core.deleteNamespacedPod({ namespace: NS, name: 'gc-held' });
    const A = a.metadata!.name!;
    const B = b.metadata!.name!;
    // B stops on a Ready node: its kubelet reports the end, then removes it
    await core.deleteNamespacedPod({ namespace: NS, name: B });
    await eventually(
      async () =>
        !(await core.listNamespacedPod({ namespace: NS })).items.some((p) => p.metadata?.name === B),
      `${B} removed by its kubelet`,
      30_000,
    );
    // "gone-pod": nothing is known of it (no pod, no departure seen, no node recorded)
    await setMap('gc', JSON.stringify({ 0: A, 1: 'gone-pod', 2: 'gc-held', 3: B }));
    await eventually(
      async () => {
        const map = await mapOf(apps, NS, 'gc');
        if (map === JSON.stringify({ 0: A, 1: 'gone-pod' })) return true;
        // a timeout then names the map as it stood (B's departure not seen? gc-held kept?)
        throw new Error(`the map is ${map}`);
      },
      'the entries of the pods known to have stopped given back',
      30_000,
    );
    // and nothing more: the live pod keeps its ID, the unknown one stays, and the page says why
    const admin = trpcClient(h.console.url, h.cluster.users.admin.token);
    const rows = (await admin.instanceIds.list.query({ cluster: 'palisade-embedded' })).rows;
    expect(rows.find((r) => r.key === `${NS}/Deployment/gc`)?.unconfirmed).toEqual([
      {
        id: 1,
        pod: 'gone-pod',
        reason: 'node-unknown',
        text: 'gone-pod: gone from the API, and where it ran is not known: nothing confirms it stopped',
      },
    ]);
    expect(JSON.parse((await mapOf(apps, NS, 'gc'))!)).toEqual({ 0: A, 1: 'gone-pod' });
    await core.patchNamespacedPod(
      { namespace: NS, name: 'gc-held', body: { metadata: { finalizers: null } } },
      merge,
    );
  });

  it('does not rewrite a map it cannot read, nor touch a workload that has not opted in', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'bad', 1) });
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(NS, 'plain', 1, { optIn: false }),
    });
    await livePods(core, NS, 'bad', 1);
    await setMap('bad', '{"0":"gc-held","x":"also-gone"}');
    await setMap('plain', '{"0":"gc-held"}');
    // gc-held is gone now (its finalizer removed): swept from the opted-in map meanwhile
    await setMap('gc', JSON.stringify({ 1: 'gc-held' }));
    await eventually(async () => (await mapOf(apps, NS, 'gc')) === '{}', 'the other map swept', 30_000);
    expect(await mapOf(apps, NS, 'bad')).toBe('{"0":"gc-held","x":"also-gone"}');
    expect(await mapOf(apps, NS, 'plain')).toBe('{"0":"gc-held"}');
  });
});
