// Palisade as pods on real nodes (issue 26 item 4): the image `npm run image` builds, imported into
// each node's containerd, the Helm chart installed with its defaults. Its three replicas pass
// their probes on real kubelets; the leader's self-probe reaches a replica through the webhook's
// Service, so it enforces the pod-deletion webhook (failurePolicy Fail); then a deletion storm on
// real pods of a protected Deployment: every deletion answered, none past the floor.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, PLURAL, VERSION } from '../../../lib/protection/types.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { leftovers } from '../host.js';
import { buildImage, installPalisade, replicas } from '../palisade.js';
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

const message = (e: unknown) => {
  const body = (e as { body?: unknown }).body;
  return typeof body === 'string' ? body : JSON.stringify(body ?? (e as Error).message);
};

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
    const ns = 'storm';
    const FLOOR = 6;
    const PODS = 12;
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
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: ns,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'PodProtector',
        metadata: { name: 'web' },
        spec: { minAvailable: FLOOR, selector: { matchLabels: { app: 'web' } } },
      },
    });
    const readyPods = async () =>
      (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items.filter(
        (p) =>
          !p.metadata?.deletionTimestamp &&
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
    await eventually(async () => (await readyPods()).length === PODS, `${PODS} ready pods`, 300_000);
    // the leader has counted them: the protector's status says how many are available
    await eventually(
      async () => {
        const p = (await custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace: ns,
          name: 'web',
        })) as {
          status?: { summary?: { aggregatedAvailableReplicas?: number } };
        };
        return (p.status?.summary?.aggregatedAvailableReplicas ?? 0) >= PODS;
      },
      'the protector aggregated',
      120_000,
    );

    const admitted: string[] = [];
    const refused: string[] = [];
    const failed: string[] = [];
    let lowest = PODS;
    const queue = (await readyPods()).map((p) => p.metadata?.name as string);
    const worker = async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        await core.deleteNamespacedPod({ namespace: ns, name }).then(
          () => admitted.push(name),
          (e) =>
            (message(e).includes(`PodProtector ${ns}/web`) ? refused : failed).push(`${name}: ${message(e)}`),
        );
        lowest = Math.min(lowest, (await readyPods()).length);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    log(
      `storm on real pods: ${admitted.length} admitted, ${refused.length} refused at the floor, ${failed.length} failed`,
    );
    expect(failed).toEqual([]);
    expect(admitted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(lowest).toBeGreaterThanOrEqual(FLOOR);
  }, 600_000);
});
