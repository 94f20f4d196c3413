// The instance-ID collector (both back ends): on the leader, entries of pods that are gone or
// terminating are given back without any pod asking, once seen stale in two sweeps; entries of
// live pods stay, and so does a map Palisade will not rewrite.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANCE_IDS_ANNOTATION } from '../../lib/instanceIds/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { deployment, livePods, mapOf, NOWHERE } from './test/helpers.js';

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
    console: { instanceIdSweepMs: 500 },
  });
  core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  apps = h.cluster.kc.makeApiClient(k8s.AppsV1Api);
  await createReadyNamespace(core, NS);
}, 180_000);

afterAll(() => h?.stop());

describe('the instance-ID collector', () => {
  it('gives back the IDs of pods gone or terminating, and leaves live pods theirs', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'gc', 2) });
    const [a, b] = await livePods(core, NS, 'gc', 2);
    // a pod of the workload held by a finalizer stays, terminating, after its deletion
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
    await setMap('gc', JSON.stringify({ 0: A, 1: 'gone-pod', 2: 'gc-held', 3: B }));
    await eventually(
      async () => (await mapOf(apps, NS, 'gc')) === JSON.stringify({ 0: A, 3: B }),
      'the stale entries given back',
      30_000,
    );
    // and nothing more: the live pods keep theirs (B moves down when it asks again)
    expect(JSON.parse((await mapOf(apps, NS, 'gc'))!)).toEqual({ 0: A, 3: B });
    await core.patchNamespacedPod(
      { namespace: NS, name: 'gc-held', body: { metadata: { finalizers: null } } },
      merge,
    );
  });

  it('does not rewrite a map it cannot read', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'bad', 1) });
    await livePods(core, NS, 'bad', 1);
    await setMap('bad', '{"0":"gone-pod","x":"also-gone"}');
    await setMap('gc', JSON.stringify({ 1: 'gone-again' }));
    // the valid one is swept meanwhile: the invalid one was seen and left alone
    await eventually(async () => (await mapOf(apps, NS, 'gc')) === '{}', 'the other map swept', 30_000);
    expect(await mapOf(apps, NS, 'bad')).toBe('{"0":"gone-pod","x":"also-gone"}');
  });
});
