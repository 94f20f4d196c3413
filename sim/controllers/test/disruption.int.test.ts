// PodDisruptionBudget status from the disruption controller: integer and percentage
// budgets, the controllers' scale for percentages and maxUnavailable, disruptedPods
// bookkeeping, and the eviction API spending the budget.
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, failure, onRealControlPlane } from '../../apiserver/test/harness.js';
import { statusCode } from '../runtime/context.js';
import { DisruptionController } from '../disruption.js';
import { mergePatch } from '../runtime/patches.js';
import { type ControlPlane, markRunningReady, pod, startControlPlane } from './controlPlaneHarness.js';

let cp: ControlPlane;
const ns = 'default';

beforeAll(async () => {
  cp = await startControlPlane([new DisruptionController()]);
  // pods bound to a node that does not exist are garbage-collected on a real control plane
  await cp.kubelets.addNode('node-1');
});
afterAll(() => cp?.stop());

type Budget = Pick<k8s.V1PodDisruptionBudgetSpec, 'minAvailable' | 'maxUnavailable'>;

async function createPdb(name: string, app: string, budget: Budget) {
  await cp.policy.createNamespacedPodDisruptionBudget({
    namespace: ns,
    body: { metadata: { name }, spec: { selector: { matchLabels: { app } }, ...budget } },
  });
}

// times compare as instants: client-node reads them back as Dates
const instant = (_k: string, x: unknown) =>
  typeof x === 'string' && /^\d{4}-\d\d-\d\dT/.test(x) ? Date.parse(x) : x;
const same = (a: unknown, b: unknown) => JSON.stringify(a, instant) === JSON.stringify(b, instant);
const emptyAs = (v: unknown) => (same(v, {}) ? {} : undefined);

/** Wait until the budget's status has these values, and return it. */
async function statusOf(name: string, want: Record<string, unknown>) {
  return eventually(
    async () => {
      const pdb = await cp.policy.readNamespacedPodDisruptionBudget({ name, namespace: ns });
      const s = pdb.status;
      // kube-apiserver leaves an empty disruptedPods out (omitempty)
      const ok = s && Object.entries(want).every(([k, v]) => same((s as any)[k] ?? emptyAs(v), v));
      // the last status seen goes into the timeout message
      if (!ok) throw new Error(`status is ${JSON.stringify(s)}`);
      return pdb;
    },
    `${name} status ${JSON.stringify(want)}`,
    10_000,
  );
}

async function readyPods(app: string, names: string[], owner?: k8s.V1OwnerReference, nodeName?: string) {
  for (const name of names) {
    const body = pod(name, { labels: { app }, spec: nodeName ? { nodeName } : {} });
    if (owner) body.metadata!.ownerReferences = [owner];
    // on a real control plane the owner's controller may have created the pod first: same pod
    await cp.c.core.createNamespacedPod({ namespace: ns, body }).catch((e) => {
      if (!onRealControlPlane || statusCode(e) !== 409) throw e;
    });
    await markRunningReady(cp.c, ns, name);
  }
}

/**
 * Two ready pods of the ReplicaSet. On a real control plane its controller makes the pods
 * (and would delete extra ones of ours): two of those become ready instead.
 */
async function replicaSetPods(rs: k8s.V1ReplicaSet, names: string[]) {
  const app = rs.spec!.selector.matchLabels!.app;
  if (!onRealControlPlane) return readyPods(app, names, ownerRef(rs, 'ReplicaSet'));
  const made = await eventually(async () => {
    const list = await cp.c.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` });
    const owned = list.items.filter((p) => p.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid);
    return owned.length >= names.length && owned;
  }, `pods of ${rs.metadata?.name}`);
  for (const p of made.slice(0, names.length)) await markRunningReady(cp.c, ns, p.metadata!.name!);
}

const ownerRef = (o: k8s.KubernetesObject, kind: string): k8s.V1OwnerReference => ({
  apiVersion: 'apps/v1',
  kind,
  name: o.metadata!.name!,
  uid: o.metadata!.uid!,
  controller: true,
});

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
});

describe('disruption controller', () => {
  it('an integer minAvailable counts the matching pods and their readiness', async () => {
    await readyPods('db', ['db-a', 'db-b', 'db-c'], undefined, 'node-1');
    await createPdb('db', 'db', { minAvailable: 2 });
    const pdb = await statusOf('db', {
      observedGeneration: 1,
      expectedPods: 3,
      currentHealthy: 3,
      desiredHealthy: 2,
      disruptionsAllowed: 1,
    });
    expect(pdb.status?.conditions?.[0]).toMatchObject({
      type: 'DisruptionAllowed',
      status: 'True',
      reason: 'SufficientPods',
      observedGeneration: 1,
    });

    await markRunningReady(cp.c, ns, 'db-c', false);
    const short = await statusOf('db', { currentHealthy: 2, disruptionsAllowed: 0 });
    expect(short.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    await markRunningReady(cp.c, ns, 'db-c');
    await statusOf('db', { currentHealthy: 3, disruptionsAllowed: 1 });
  });

  it('the eviction API spends the budget; the controller drops evicted pods once they terminate', async () => {
    await cp.c.core.createNamespacedPodEviction({
      name: 'db-a',
      namespace: ns,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'db-a', namespace: ns } },
    });
    // db-a is terminating (bound pods keep their grace period): no longer healthy or disrupted
    const after = await statusOf('db', {
      expectedPods: 3,
      currentHealthy: 2,
      disruptionsAllowed: 0,
      disruptedPods: {},
    });
    expect(after.status?.disruptedPods ?? {}).toEqual({});
    const denied = await failure(
      cp.c.core.createNamespacedPodEviction({
        name: 'db-b',
        namespace: ns,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'db-b', namespace: ns } },
      }),
    );
    expect(denied.code).toBe(429);
  });

  it('keeps a recent disruption of a live pod out of currentHealthy', async () => {
    await readyPods('cache', ['cache-a', 'cache-b']);
    await createPdb('cache', 'cache', { minAvailable: 1 });
    const pdb = await statusOf('cache', { currentHealthy: 2, disruptionsAllowed: 1 });
    const evictedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await cp.policy.patchNamespacedPodDisruptionBudgetStatus(
      {
        name: 'cache',
        namespace: ns,
        body: {
          metadata: { resourceVersion: pdb.metadata?.resourceVersion },
          status: { disruptedPods: { 'cache-a': evictedAt } },
        },
      },
      mergePatch,
    );
    await statusOf('cache', {
      currentHealthy: 1,
      disruptionsAllowed: 0,
      disruptedPods: { 'cache-a': evictedAt },
    });
    // the pod goes away: its entry goes too
    await cp.c.core.deleteNamespacedPod({ name: 'cache-a', namespace: ns });
    await statusOf('cache', { expectedPods: 1, currentHealthy: 1, disruptionsAllowed: 0, disruptedPods: {} });
  });

  // Paused Deployment with a hand-made ReplicaSet of 4 and two Ready pods: a real Deployment
  // controller makes no ReplicaSet of its own for a paused Deployment, but adopts and scales this one.
  async function pausedDeployment(app: string) {
    const dep = await cp.c.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: app },
        spec: {
          replicas: 4,
          paused: true,
          selector: { matchLabels: { app } },
          template: template(app),
        },
      },
    });
    const rs = await cp.c.apps.createNamespacedReplicaSet({
      namespace: ns,
      body: {
        metadata: { name: `${app}-5d8f`, labels: { app }, ownerReferences: [ownerRef(dep, 'Deployment')] },
        spec: { replicas: 4, selector: { matchLabels: { app } }, template: template(app) },
      },
    });
    await replicaSetPods(rs, [`${app}-5d8f-1`, `${app}-5d8f-2`]);
  }

  const scaleDeployment = (name: string, replicas: number) =>
    cp.c.apps.patchNamespacedDeployment({ name, namespace: ns, body: { spec: { replicas } } }, mergePatch);

  // One Deployment per budget: when several budgets select a pod, kube-controller-manager
  // re-syncs only one of them (chosen arbitrarily) on that pod's changes.
  it('percentages and maxUnavailable use the Deployment scale, following it when it changes', async () => {
    await pausedDeployment('web');
    await pausedDeployment('api');
    await createPdb('web-half', 'web', { minAvailable: '50%' });
    await createPdb('api-quarter', 'api', { maxUnavailable: '25%' });
    await statusOf('web-half', {
      expectedPods: 4,
      desiredHealthy: 2,
      currentHealthy: 2,
      disruptionsAllowed: 0,
    });
    await statusOf('api-quarter', {
      expectedPods: 4,
      desiredHealthy: 3,
      currentHealthy: 2,
      disruptionsAllowed: 0,
    });

    await scaleDeployment('web', 2);
    await scaleDeployment('api', 2);
    await statusOf('web-half', { expectedPods: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    // 25 % of 2 rounds up to one unavailable pod
    await statusOf('api-quarter', { expectedPods: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
  });

  it('maxUnavailable uses the StatefulSet scale', async () => {
    const sts = await cp.c.apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'kv' },
        spec: {
          replicas: 3,
          serviceName: 'kv',
          // a real StatefulSet controller would replace the hand-made pods (no revision label)
          updateStrategy: { type: 'OnDelete' },
          selector: { matchLabels: { app: 'kv' } },
          template: template('kv'),
        },
      },
    });
    await readyPods('kv', ['kv-0', 'kv-1', 'kv-2'], ownerRef(sts, 'StatefulSet'));
    await createPdb('kv', 'kv', { maxUnavailable: 1 });
    await statusOf('kv', { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });
  });

  // skip on real: kube-controller-manager's garbage collector deletes a pod whose owner does
  // not exist within seconds, so such a pod does not stay for the disruption controller to judge
  it.skipIf(onRealControlPlane)('fails safe when a pod names a controller that does not exist', async () => {
    const ghost: k8s.V1OwnerReference = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'gone',
      uid: '00000000-0000-0000-0000-000000000000',
      controller: true,
    };
    await readyPods('lost', ['lost-1'], ghost);
    await createPdb('lost', 'lost', { maxUnavailable: 0 });
    await statusOf('lost', { disruptionsAllowed: 0 });
    await eventually(async () => {
      const p = await cp.policy.readNamespacedPodDisruptionBudget({ name: 'lost', namespace: ns });
      return p.status?.conditions?.[0]?.reason === 'SyncFailed';
    }, 'SyncFailed condition');
    const p = await cp.policy.readNamespacedPodDisruptionBudget({ name: 'lost', namespace: ns });
    expect(p.status?.conditions?.[0]).toMatchObject({
      status: 'False',
      message: 'found no controllers for pod "lost-1"',
    });
  });
});
