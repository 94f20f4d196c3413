// Deployment controller over the ReplicaSet controller: a RollingUpdate that stays
// within maxSurge/maxUnavailable at every step the API shows, and Recreate.
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from '../../apiserver/test/harness.js';
import { DeploymentController } from '../deployment.js';
import { ReplicaSetController } from '../replicaSet.js';
import { mergePatch } from '../runtime/patches.js';
import { container, startWorkloads, type Workloads } from './workloadsHarness.js';

let w: Workloads;
const ns = 'deploy';
beforeAll(async () => {
  w = await startWorkloads([new DeploymentController(), new ReplicaSetController()], [ns]);
  w.kubelet.readyAfterMs = 60; // so the rollout has intermediate states to look at
  w.kubelet.finish = (p) => p.metadata?.namespace === ns;
});
afterAll(() => w?.stop());

const deployment = (name: string, strategy: k8s.V1DeploymentStrategy, replicas = 4): k8s.V1Deployment => ({
  metadata: { name, namespace: ns },
  spec: {
    replicas,
    strategy,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [container()] } },
  },
});
const read = (name: string) => w.c.apps.readNamespacedDeployment({ name, namespace: ns });
const isReady = (p: k8s.V1Pod) =>
  !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const sets = async (app: string) =>
  (await w.c.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: `app=${app}` })).items;
const complete = (name: string) =>
  eventually(
    async () => {
      const d = await read(name);
      // what kubectl rollout status waits for, plus the condition
      const s = d.status;
      const want = d.spec?.replicas;
      const progressing = s?.conditions?.find((c) => c.type === 'Progressing');
      const rolledOut = s?.updatedReplicas === want && s?.replicas === want && s?.availableReplicas === want;
      const done = s?.observedGeneration === d.metadata?.generation && rolledOut;
      return done && progressing?.reason === 'NewReplicaSetAvailable' && d;
    },
    `${name} complete`,
    20_000,
  );
const setImage = (name: string, image: string) =>
  w.c.apps.patchNamespacedDeployment(
    { name, namespace: ns, body: { spec: { template: { spec: { containers: [container(image)] } } } } },
    mergePatch,
  );

describe('Deployment', () => {
  it('rolls out within maxSurge and maxUnavailable, ending with the new set full and the old at 0', async () => {
    await w.c.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('web', {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' },
      }),
    });
    const first = await complete('web');
    expect(first.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(first.status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
    });

    // watch every pod change of the rollout: counts as the API shows them, in order
    let maxActive = 0;
    let minReady = Number.POSITIVE_INFINITY;
    w.kubelet.pods.on({
      update: (p) => {
        if (p.metadata?.labels?.app !== 'web') return;
        const active = w.kubelet.list(
          ns,
          (x) => x.metadata?.labels?.app === 'web' && !x.metadata.deletionTimestamp,
        );
        maxActive = Math.max(maxActive, active.length);
        minReady = Math.min(minReady, active.filter(isReady).length);
      },
    });
    // the Deployment controller's own bound: the ReplicaSets' spec.replicas summed
    let maxSpecs = 0;
    w.ctx.informers.replicaSets.on({
      update: () => {
        const web = w.ctx.informers.replicaSets.list(ns).filter((s) => s.metadata?.labels?.app === 'web');
        maxSpecs = Math.max(
          maxSpecs,
          web.reduce((n, s) => n + (s.spec?.replicas ?? 0), 0),
        );
      },
    });
    // Progressing conditions of the new spec, in order. kube-controller-manager writes
    // NewReplicaSetCreated before it bumps observedGeneration (and may write its first
    // observed status only once the sets progressed), so these are picked by the spec's
    // generation and by naming the new set, not by observedGeneration.
    const seen: { reason: string; message: string }[] = [];
    w.ctx.informers.deployments.on({
      update: (d) => {
        const c = d.status?.conditions?.find((x) => x.type === 'Progressing');
        if (d.metadata?.name === 'web' && c?.reason && d.metadata.generation === 2)
          seen.push({ reason: c.reason, message: c.message ?? '' });
      },
    });
    await setImage('web', 'nginx:1.27');
    const done = await complete('web');
    const named = (await sets('web')).find(
      (s) => s.spec?.template?.spec?.containers[0].image === 'nginx:1.27',
    )?.metadata?.name;
    const reasons = () => [
      ...new Set(seen.filter((x) => named && x.message.includes(`"${named}"`)).map((x) => x.reason)),
    ];
    // complete() reads the API; the informer collecting the reasons may be a moment behind it
    await eventually(() => reasons().includes('NewReplicaSetAvailable'), 'the informer sees the rollout end');
    expect(reasons(), JSON.stringify(seen)).toEqual([
      'NewReplicaSetCreated',
      'ReplicaSetUpdated',
      'NewReplicaSetAvailable',
    ]);
    // 4 replicas: surge 1 -> at most 5 pods; 25% of 4 = 1 unavailable -> at least 3 ready.
    // kube-controller-manager bounds the sets' spec.replicas, not the pods: it scales the new
    // set up once the old set's spec is lowered, and the ReplicaSet controller may create the
    // new pod before it deletes the old one, so one more pod (of maxUnavailable's 1) can show
    // for a moment. The embedded controllers keep the pods inside the bound too.
    expect(maxSpecs).toBe(5);
    expect(maxActive).toBeGreaterThanOrEqual(5);
    expect(maxActive).toBeLessThanOrEqual(onRealControlPlane ? 6 : 5);
    expect(minReady).toBeGreaterThanOrEqual(3);
    expect(done.status).toMatchObject({
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
    });
    // omitempty: kube-apiserver leaves a zero count out, the embedded one keeps it
    expect(done.status?.unavailableReplicas ?? 0).toBe(0);
    expect(done.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const rs = await sets('web');
    const hash = (s: k8s.V1ReplicaSet) => s.metadata?.labels?.['pod-template-hash'];
    const newSet = rs.find((s) => s.spec?.template?.spec?.containers[0].image === 'nginx:1.27')!;
    const oldSet = rs.find((s) => s !== newSet)!;
    expect(newSet.metadata?.name).toBe(`web-${hash(newSet)}`);
    expect(newSet.spec?.selector.matchLabels?.['pod-template-hash']).toBe(hash(newSet));
    expect(newSet.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect([newSet.spec?.replicas, newSet.status?.replicas]).toEqual([4, 4]);
    expect([oldSet.spec?.replicas, oldSet.status?.replicas ?? 0]).toEqual([0, 0]);
  });

  it('Recreate: the new set starts only after every old pod is gone', async () => {
    await w.c.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('batch', { type: 'Recreate' }, 2),
    });
    await complete('batch');
    const oldHash = (await sets('batch'))[0].metadata?.labels?.['pod-template-hash'];
    let overlap = false;
    w.kubelet.pods.on({
      add: (p) => {
        if (p.metadata?.labels?.app !== 'batch') return;
        const all = w.kubelet.list(ns, (x) => x.metadata?.labels?.app === 'batch');
        overlap ||= all.some((x) => x.metadata?.labels?.['pod-template-hash'] === oldHash);
      },
    });
    await setImage('batch', 'nginx:1.27');
    const done = await complete('batch');
    expect(overlap).toBe(false);
    expect(done.status?.updatedReplicas).toBe(2);
  });

  it('reports progress with the real condition reasons', async () => {
    const d = await read('web');
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing?.message).toMatch(/^ReplicaSet "web-[a-z0-9]+" has successfully progressed\.$/);
    const events = await w.c.core.listNamespacedEvent({ namespace: ns });
    expect(
      events.items.some(
        (e) => e.reason === 'ScalingReplicaSet' && /^Scaled up replica set web-/.test(e.message ?? ''),
      ),
    ).toBe(true);
  });
});
