// Palisade as pods on real nodes (issue 26 item 4): the image `npm run image` builds, imported into
// each node's containerd, the Helm chart installed with its defaults. Its three replicas pass
// their probes on real kubelets; the leader's self-probe reaches a replica through the webhook's
// Service, so it enforces the pod-deletion webhook (failurePolicy Fail); then a deletion storm on
// real pods of a protected Deployment: every deletion answered, none past the floor; again with a
// replica's node powered off (still a ready endpoint) and through a rolling update of the replicas.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../../../server/ha/fixture.js';
import { createProtector, getProtector } from '../../../server/protection/test/protectionHarness.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { leftovers } from '../host.js';
import { CHART } from '../../../deploy/test/helm.js';
import { PALISADE_NAMESPACE, buildImage, helm, installPalisade, replicas } from '../palisade.js';
import { WORKLOAD_IMAGE } from '../plan.js';
import { type RealNodeTier, startRealNodeTier } from '../tier.js';

const log = (m: string) => console.log(`[nodes] ${m}`);
let tier: RealNodeTier;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  // PALISADE_NODES_REUSE_IMAGE=1: an archive already in dist/ is used as it is (local runs)
  const archive = buildImage(log, !!process.env.PALISADE_NODES_REUSE_IMAGE);
  tier = await startRealNodeTier({ nodes: 4, zones: 2, log });
  core = tier.kubeConfig.makeApiClient(k8s.CoreV1Api);
  await installPalisade(tier, { archive, log });
}, 1_800_000);

afterAll(async () => {
  await tier?.stop();
  expect(leftovers()).toEqual([]);
}, 180_000);

describe('Palisade installed from its image and chart on real nodes', () => {
  it('runs three Ready replicas as pods, and the leader enforces the webhook reached through its Service', async () => {
    const set = await replicas(tier);
    expect(set.filter((r) => r.ready)).toHaveLength(3);
    expect(set.every((r) => r.restarts === 0)).toBe(true);
    const admission = tier.kubeConfig.makeApiClient(k8s.AdmissionregistrationV1Api);
    await eventually(
      async () =>
        (await admission.readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' })).webhooks?.[0]
          .failurePolicy === 'Fail',
      'the pod-deletion webhook enforced (failurePolicy Fail)',
      180_000,
    );
  }, 240_000);

  it('answers every deletion of a storm on real pods, and admits none past the floor', async () => {
    await protectedDeployment('storm');
    const r = await storm('storm');
    expect(r.failed).toEqual([]);
    expect(r.admitted.length).toBeGreaterThan(0);
    expect(r.refused.length).toBeGreaterThan(0);
    expect(r.lowest).toBeGreaterThanOrEqual(FLOOR);
  }, 600_000);

  it('goes on answering every deletion when a replica node loses power mid-storm', async () => {
    await protectedDeployment('storm-power');
    const first = (await replicas(tier))[0];
    const victim = tier.nodes.find((n) => n.name === first.node)!;
    await victim.powerOff();
    log(`replica ${first.name}'s node ${victim.name} powered off`);
    // the controller manager has not noticed yet (its grace period is 40 s): the dead replica is
    // still among the webhook Service's ready endpoints, and kube-apiserver still picks it
    const discovery = tier.kubeConfig.makeApiClient(k8s.DiscoveryV1Api);
    const endpoints = async () =>
      (
        await discovery.listNamespacedEndpointSlice({
          namespace: PALISADE_NAMESPACE,
          labelSelector: 'kubernetes.io/service-name=palisade-webhook',
        })
      ).items.flatMap((e) => e.endpoints.filter((p) => p.conditions?.ready).flatMap((p) => p.addresses));
    expect(await endpoints()).toContain(first.ip);
    const r = await storm('storm-power');
    expect(r.failed).toEqual([]);
    expect(r.lowest).toBeGreaterThanOrEqual(FLOOR);
    log(`dead replica still a ready endpoint after the storm: ${(await endpoints()).includes(first.ip)}`);
    await victim.powerOn();
    // the kubelet starts the replica again on the rebooted node (its restart count says so)
    await eventually(
      async () => {
        const set = await replicas(tier);
        return (
          set.filter((x) => x.ready).length === 3 && set.some((x) => x.name === first.name && x.restarts > 0)
        );
      },
      'the replica running again after the reboot, 3 Ready',
      300_000,
    );
  }, 900_000);

  it('goes on answering every deletion through a rolling update of the replicas', async () => {
    await protectedDeployment('storm-rollout');
    const before = new Set((await replicas(tier)).map((r) => r.name));
    // a changed pod template: the chart's strategy replaces one replica at a time (surge 1)
    helm(tier, [
      'upgrade',
      'palisade',
      CHART,
      '--namespace',
      PALISADE_NAMESPACE,
      '--reuse-values',
      '--set',
      'podAnnotations.rollout=two',
    ]);
    await eventually(
      async () => (await replicas(tier)).some((r) => !before.has(r.name)),
      'the rollout under way (a new replica)',
      120_000,
    );
    const r = await storm('storm-rollout');
    expect(r.failed).toEqual([]);
    expect(r.lowest).toBeGreaterThanOrEqual(FLOOR);
    await eventually(
      async () => {
        const set = await replicas(tier);
        return set.length === 3 && set.every((x) => x.ready && !before.has(x.name));
      },
      'three new Ready replicas',
      300_000,
    );
  }, 900_000);
});

const FLOOR = 6;
const PODS = 12;

/** PODS real pods of a Deployment under a PodProtector that keeps FLOOR, counted by the leader */
async function protectedDeployment(ns: string) {
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const apps = tier.kubeConfig.makeApiClient(k8s.AppsV1Api);
  await apps.createNamespacedDeployment({
    namespace: ns,
    body: {
      metadata: { name: 'web' },
      spec: {
        replicas: PODS,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            terminationGracePeriodSeconds: 2,
            containers: [
              { name: 'w', image: WORKLOAD_IMAGE, imagePullPolicy: 'Never', args: ['-listen', ':8080'] },
            ],
          },
        },
      },
    },
  });
  const custom = tier.kubeConfig.makeApiClient(k8s.CustomObjectsApi);
  await createProtector(custom, ns, 'web', { minAvailable: FLOOR, selector: { app: 'web' } });
  await eventually(async () => (await readyPods(ns)).length === PODS, `${PODS} ready pods in ${ns}`, 300_000);
  await eventually(
    async () => {
      const p = await getProtector(custom, ns, 'web');
      return (p.status?.summary?.aggregatedAvailableReplicas ?? 0) >= PODS;
    },
    `the protector in ${ns} aggregated`,
    120_000,
  );
}

const readyPods = async (ns: string) =>
  (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );

/** four workers delete every ready pod at once; each answer sorted, the fewest ready pods seen */
async function storm(ns: string) {
  const admitted: string[] = [];
  const refused: string[] = [];
  const failed: string[] = [];
  let lowest = PODS;
  const queue = (await readyPods(ns)).map((p) => p.metadata?.name as string);
  const worker = async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      const t0 = Date.now();
      await core.deleteNamespacedPod({ namespace: ns, name }).then(
        () => admitted.push(name),
        (e) =>
          (message(e).includes(`PodProtector ${ns}/web`) ? refused : failed).push(
            `${name} (${Date.now() - t0} ms): ${message(e)}`,
          ),
      );
      lowest = Math.min(lowest, (await readyPods(ns)).length);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  log(
    `storm in ${ns}: ${admitted.length} admitted, ${refused.length} refused at the floor, ${failed.length} failed`,
  );
  return { admitted, refused, failed, lowest };
}
