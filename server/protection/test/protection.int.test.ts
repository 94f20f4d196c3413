// Deletion protection end to end on the embedded cluster: the generator derives a
// protector from a labelled Deployment, the aggregator counts its pods, and the API
// server calls Palisade's webhook, which refuses deletions beyond the floor with
// Podseidon's messages — for DELETE, eviction and deletecollection; dry runs reserve nothing.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import type { ProtectionService } from '../service.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import { scenario } from './protectionHarness.js';
import { palisadeKc } from '../../test/identity.js';
import { startProtectionAlone } from './standalone.js';

let cluster: Awaited<ReturnType<typeof startScenario>>;
let protection: ProtectionService;
let custom: k8s.CustomObjectsApi;
const ns = 'shop';

async function protectorStatus(name: string) {
  const p = (await custom.getNamespacedCustomObject({
    group: 'podseidon.kubewharf.io',
    version: 'v1alpha1',
    plural: 'podprotectors',
    namespace: ns,
    name,
  })) as any;
  return p;
}

async function readyPods(app: string) {
  const list = await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` });
  return list.items.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
}

function deployment(name: string, replicas: number, maxUnavailable: number | string) {
  return {
    metadata: { name, namespace: ns, labels: { 'podseidon.kubewharf.io/protect': 'true' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge: 1 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  };
}

beforeAll(async () => {
  cluster = await startScenario(scenario('protection-test', 2));
  await createReadyNamespace(cluster.core, ns);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  protection = await startProtectionAlone({
    config: {
      webhook: { port: 0, host: '127.0.0.1', register: true },
      aggregator: {
        protectorSelector: '',
        updateTrigger: { enabled: true, namespace: 'default', intervalMillis: 300 },
      },
    },
    clusters: [{ id: 'embedded', context: 'palisade-embedded', kc: await palisadeKc(cluster.kc) }],
  });
}, 120_000);

afterAll(async () => {
  await protection?.stop();
  await cluster?.stop();
});

describe('deletion protection on the embedded cluster', () => {
  it('the generator creates deployment-<name> with minAvailable = replicas - maxUnavailable', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web', 4, 1) as never });
    const p = await eventually(() => protectorStatus('deployment-web'), 'protector deployment-web', 20_000);
    expect(p.spec.minAvailable).toBe(3);
    expect(p.metadata.finalizers).toContain('podseidon.kubewharf.io/generator');
    const d = await cluster.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    expect(d.metadata?.finalizers).toContain('podseidon.kubewharf.io/generator');
    await eventually(
      async () => {
        const s = (await protectorStatus('deployment-web')).status?.summary;
        if (s?.aggregatedAvailableReplicas !== 4)
          throw new Error(`aggregated ${s?.aggregatedAvailableReplicas}`);
        return true;
      },
      'aggregated 4',
      30_000,
    );
  });

  it('a dry-run delete in the body is judged, reserves nothing and the pod survives', async () => {
    const [pod] = await readyPods('web');
    await cluster.core.deleteNamespacedPod({
      namespace: ns,
      name: pod.metadata!.name!,
      body: { dryRun: ['All'] },
    });
    const again = await cluster.core.readNamespacedPod({ namespace: ns, name: pod.metadata!.name! });
    expect(again.metadata?.deletionTimestamp).toBeUndefined();
    const s = (await protectorStatus('deployment-web')).status;
    expect(s.summary.estimatedAvailableReplicas).toBe(4);
  });

  it('admits one deletion, then refuses the next with Podseidon’s message', async () => {
    const pods = await readyPods('web');
    await cluster.core.deleteNamespacedPod({ namespace: ns, name: pods[0].metadata!.name! });
    const err = await cluster.core.deleteNamespacedPod({ namespace: ns, name: pods[1].metadata!.name! }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeDefined();
    expect(String(err.body ?? err.message)).toMatch(
      /PodProtector shop\/deployment-web (reports too few available replicas to admit pod deletion|has full admission buffer and is temporarily unable to admit pod deletion)/,
    );
    const eviction = await cluster.core
      .createNamespacedPodEviction({
        namespace: ns,
        name: pods[2].metadata!.name!,
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: pods[2].metadata!.name!, namespace: ns },
        },
      })
      .then(
        () => undefined,
        (e) => e,
      );
    expect(String(eviction?.body ?? eviction?.message)).toMatch(/PodProtector shop\/deployment-web/);
  });
});
