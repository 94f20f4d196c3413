import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, eventually, failure, podSpec, raw, startCluster } from './harness.js';

let c: Cluster;
const ns = 'del';
beforeAll(async () => {
  c = await startCluster();
  await c.core.createNamespace({ body: { metadata: { name: ns } } });
});
afterAll(() => c.stop());

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const boundPod = (name: string, labels: Record<string, string> = { app: 'web' }) =>
  podSpec(name, {
    metadata: { name, labels },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx' }] },
  });
const read = (name: string) => c.core.readNamespacedPod({ name, namespace: ns });
const exists = async (name: string) =>
  (await c.core.listNamespacedPod({ namespace: ns, fieldSelector: `metadata.name=${name}` })).items.length >
  0;

describe('graceful pod deletion', () => {
  it('keeps a bound pod with deletionTimestamp until it is deleted with grace 0', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: boundPod('g1') });
    const before = Date.now();
    const res = await c.core.deleteNamespacedPod({ name: 'g1', namespace: ns });
    expect(res.metadata?.deletionGracePeriodSeconds).toBe(30);
    const p = await read('g1');
    const deadline = new Date(p.metadata!.deletionTimestamp!).getTime();
    expect(deadline).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 29_000);
    // the grace period may only shorten
    await c.core.deleteNamespacedPod({ name: 'g1', namespace: ns, gracePeriodSeconds: 60 });
    expect((await read('g1')).metadata?.deletionGracePeriodSeconds).toBe(30);
    await c.core.deleteNamespacedPod({ name: 'g1', namespace: ns, gracePeriodSeconds: 10 });
    const shorter = await read('g1');
    expect(shorter.metadata?.deletionGracePeriodSeconds).toBe(10);
    expect(new Date(shorter.metadata!.deletionTimestamp!).getTime()).toBeLessThan(deadline);
    // only the kubelet's grace-0 delete removes it
    await c.core.deleteNamespacedPod({ name: 'g1', namespace: ns, gracePeriodSeconds: 0 });
    expect(await exists('g1')).toBe(false);
  });

  it('deletes an unscheduled pod at once', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('pending1') });
    await c.core.deleteNamespacedPod({ name: 'pending1', namespace: ns });
    expect(await exists('pending1')).toBe(false);
  });

  it('refuses to change a pod spec except the mutable fields', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: boundPod('immut') });
    const err = await failure(
      c.core.patchNamespacedPod(
        { name: 'immut', namespace: ns, body: { spec: { nodeName: 'node-2' } } },
        merge,
      ),
    );
    expect(err.code).toBe(422);
    expect(err.status.message).toContain('pod updates may not change fields other than');
    const ok = await c.core.patchNamespacedPod(
      { name: 'immut', namespace: ns, body: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(ok.spec?.containers[0].image).toBe('nginx:2');
  });
});

describe('finalizers and preconditions', () => {
  it('holds an object with finalizers until the last one is removed', async () => {
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'fin', finalizers: ['example.com/a', 'example.com/b'] } },
    });
    await c.core.deleteNamespacedConfigMap({ name: 'fin', namespace: ns });
    const held = await c.core.readNamespacedConfigMap({ name: 'fin', namespace: ns });
    expect(held.metadata?.deletionTimestamp).toBeTruthy();
    const addMore = await failure(
      c.core.patchNamespacedConfigMap(
        {
          name: 'fin',
          namespace: ns,
          body: { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } },
        },
        merge,
      ),
    );
    expect(addMore.code).toBe(422);
    await c.core.patchNamespacedConfigMap(
      { name: 'fin', namespace: ns, body: { metadata: { finalizers: ['example.com/b'] } } },
      merge,
    );
    expect(
      (await c.core.readNamespacedConfigMap({ name: 'fin', namespace: ns })).metadata?.finalizers,
    ).toEqual(['example.com/b']);
    await c.core.patchNamespacedConfigMap(
      { name: 'fin', namespace: ns, body: { metadata: { finalizers: null } } },
      merge,
    );
    expect((await failure(c.core.readNamespacedConfigMap({ name: 'fin', namespace: ns }))).code).toBe(404);
  });

  it('a pod with a finalizer survives grace 0 and goes when the finalizer is removed', async () => {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { ...boundPod('finpod'), metadata: { name: 'finpod', finalizers: ['example.com/hold'] } },
    });
    await c.core.deleteNamespacedPod({ name: 'finpod', namespace: ns, gracePeriodSeconds: 0 });
    const p = await read('finpod');
    expect(p.metadata?.deletionGracePeriodSeconds).toBe(0);
    await c.core.patchNamespacedPod(
      { name: 'finpod', namespace: ns, body: { metadata: { finalizers: null } } },
      merge,
    );
    expect(await exists('finpod')).toBe(false);
  });

  it('checks uid and resourceVersion preconditions', async () => {
    const p = await c.core.createNamespacedPod({ namespace: ns, body: boundPod('pre') });
    const wrongUid = await failure(
      c.core.deleteNamespacedPod({
        name: 'pre',
        namespace: ns,
        body: { preconditions: { uid: 'not-the-uid' } },
      }),
    );
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.status.message).toBe(
      `Operation cannot be fulfilled on Pod "pre": the UID in the precondition (not-the-uid) does not match the UID in record (${p.metadata?.uid}). The object might have been deleted and then recreated`,
    );
    await c.core.patchNamespacedPod(
      { name: 'pre', namespace: ns, body: { metadata: { labels: { touched: 'yes' } } } },
      merge,
    );
    const staleRv = await failure(
      c.core.deleteNamespacedPod({
        name: 'pre',
        namespace: ns,
        body: { preconditions: { resourceVersion: p.metadata?.resourceVersion } },
      }),
    );
    expect(staleRv.code).toBe(409);
    expect(staleRv.status.message).toContain('the ResourceVersion in the precondition');
    const current = await read('pre');
    await c.core.deleteNamespacedPod({
      name: 'pre',
      namespace: ns,
      body: {
        gracePeriodSeconds: 0,
        preconditions: { uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion },
      },
    });
    expect(await exists('pre')).toBe(false);
  });
});

describe('deletecollection', () => {
  it('deletes what the selector matches, with the same per-object semantics', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: boundPod('dc-bound', { batch: 'dc' }) });
    await c.core.createNamespacedPod({
      namespace: ns,
      body: podSpec('dc-pending', { metadata: { name: 'dc-pending', labels: { batch: 'dc' } } }),
    });
    await c.core.createNamespacedPod({
      namespace: ns,
      body: podSpec('dc-other', { metadata: { name: 'dc-other', labels: { batch: 'other' } } }),
    });
    await c.core.deleteCollectionNamespacedPod({ namespace: ns, labelSelector: 'batch=dc' });
    expect(await exists('dc-pending')).toBe(false);
    expect((await read('dc-bound')).metadata?.deletionTimestamp).toBeTruthy();
    expect((await read('dc-other')).metadata?.deletionTimestamp).toBeUndefined();
  });
});

describe('owner references', () => {
  const owned = (name: string, owner: k8s.V1ConfigMap, block = false) => ({
    metadata: {
      name,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: owner.metadata!.name!,
          uid: owner.metadata!.uid!,
          blockOwnerDeletion: block,
        },
      ],
    },
  });
  const cmExists = async (name: string) =>
    (await c.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: `metadata.name=${name}` })).items
      .length > 0;

  it('background: dependents go after the owner', async () => {
    const owner = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'bg-owner' } },
    });
    await c.core.createNamespacedConfigMap({ namespace: ns, body: owned('bg-dep', owner) });
    await c.core.deleteNamespacedConfigMap({ name: 'bg-owner', namespace: ns });
    expect(await cmExists('bg-owner')).toBe(false);
    await eventually(async () => !(await cmExists('bg-dep')), 'dependent collected');
  });

  it('foreground: the owner waits for blocking dependents', async () => {
    const owner = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'fg-owner' } },
    });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        ...owned('fg-dep', owner, true),
        metadata: { ...owned('fg-dep', owner, true).metadata, finalizers: ['example.com/slow'] },
      },
    });
    await c.core.deleteNamespacedConfigMap({
      name: 'fg-owner',
      namespace: ns,
      propagationPolicy: 'Foreground',
    });
    const waiting = await c.core.readNamespacedConfigMap({ name: 'fg-owner', namespace: ns });
    expect(waiting.metadata?.finalizers).toContain('foregroundDeletion');
    await eventually(
      async () =>
        (await c.core.readNamespacedConfigMap({ name: 'fg-dep', namespace: ns })).metadata?.deletionTimestamp,
      'dependent deleting',
    );
    expect(await cmExists('fg-owner')).toBe(true);
    await c.core.patchNamespacedConfigMap(
      { name: 'fg-dep', namespace: ns, body: { metadata: { finalizers: null } } },
      merge,
    );
    await eventually(async () => !(await cmExists('fg-owner')), 'owner removed after its dependent');
  });

  it('orphan: dependents stay and lose the owner reference', async () => {
    const owner = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'or-owner' } },
    });
    await c.core.createNamespacedConfigMap({ namespace: ns, body: owned('or-dep', owner) });
    await c.core.deleteNamespacedConfigMap({ name: 'or-owner', namespace: ns, propagationPolicy: 'Orphan' });
    await eventually(async () => !(await cmExists('or-owner')), 'owner removed');
    const dep = await c.core.readNamespacedConfigMap({ name: 'or-dep', namespace: ns });
    expect(dep.metadata?.ownerReferences).toBeUndefined();
  });
});

describe('namespaces', () => {
  it('a deleted namespace is Terminating, refuses new content, and goes when empty', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await c.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'a' } } });
    await c.core.createNamespacedPod({ namespace: 'doomed', body: boundPod('runner') });
    await c.core.deleteNamespace({ name: 'doomed' });
    expect((await c.core.readNamespace({ name: 'doomed' })).status?.phase).toBe('Terminating');
    const refused = await failure(
      c.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'b' } } }),
    );
    expect(refused.code).toBe(403);
    expect(refused.status.message).toBe(
      'configmaps "b" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    // the bound pod terminates gracefully: the namespace waits for it
    await eventually(
      async () =>
        (await c.core.readNamespacedPod({ name: 'runner', namespace: 'doomed' })).metadata?.deletionTimestamp,
      'pod terminating',
    );
    expect((await c.core.listNamespacedConfigMap({ namespace: 'doomed' })).items).toHaveLength(0);
    await c.core.deleteNamespacedPod({ name: 'runner', namespace: 'doomed', gracePeriodSeconds: 0 });
    await eventually(
      async () => (await failure(c.core.readNamespace({ name: 'doomed' }))).code === 404,
      'namespace removed',
    );
  });
});

describe('binding and eviction', () => {
  it('binds a pending pod once', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('tobind') });
    await c.core.createNamespacedBinding({
      namespace: ns,
      body: { metadata: { name: 'tobind' }, target: { kind: 'Node', name: 'node-7' } },
    });
    const p = await read('tobind');
    expect(p.spec?.nodeName).toBe('node-7');
    expect(p.status?.conditions?.find((x) => x.type === 'PodScheduled')?.status).toBe('True');
    const again = await failure(
      c.core.createNamespacedBinding({
        namespace: ns,
        body: { metadata: { name: 'tobind' }, target: { kind: 'Node', name: 'node-8' } },
      }),
    );
    expect(again.code).toBe(409);
    expect(again.status.message).toContain('is already assigned to node "node-7"');
  });

  it('evictions honour a PodDisruptionBudget with the real 429', async () => {
    const policy = c.kc.makeApiClient(k8s.PolicyV1Api);
    for (const n of ['ev1', 'ev2']) {
      await c.core.createNamespacedPod({ namespace: ns, body: boundPod(n, { app: 'guarded' }) });
      await c.core.patchNamespacedPodStatus(
        { name: n, namespace: ns, body: { status: { phase: 'Running' } } },
        merge,
      );
    }
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'pdb' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'guarded' } } },
      },
    });
    // stands in for the disruption controller
    await policy.patchNamespacedPodDisruptionBudgetStatus(
      {
        name: 'pdb',
        namespace: ns,
        body: {
          status: {
            observedGeneration: 1,
            disruptionsAllowed: 0,
            currentHealthy: 2,
            desiredHealthy: 2,
            expectedPods: 2,
          },
        },
      },
      merge,
    );
    const evict = (name: string) =>
      raw(
        c,
        'POST',
        `/api/v1/namespaces/${ns}/pods/${name}/eviction`,
        JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } }),
      );
    const denied = await evict('ev1');
    expect(denied.code).toBe(429);
    expect(denied.body).toMatchObject({
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget pdb needs 2 healthy pods and has 2 currently',
          },
        ],
      },
    });
    expect((await read('ev1')).metadata?.deletionTimestamp).toBeUndefined();
    await policy.patchNamespacedPodDisruptionBudgetStatus(
      { name: 'pdb', namespace: ns, body: { status: { disruptionsAllowed: 1 } } },
      merge,
    );
    const allowed = await evict('ev1');
    expect(allowed.code).toBe(201);
    expect((await read('ev1')).metadata?.deletionTimestamp).toBeTruthy();
    const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'pdb', namespace: ns });
    expect(pdb.status?.disruptionsAllowed).toBe(0);
    expect(Object.keys(pdb.status?.disruptedPods ?? {})).toEqual(['ev1']);
    expect((await evict('ev2')).code).toBe(429);
  });
});

describe('server-side dry run changes nothing on any path', () => {
  const policy = () => c.kc.makeApiClient(k8s.PolicyV1Api);
  const running = async (name: string, labels: Record<string, string>) => {
    await c.core.createNamespacedPod({ namespace: ns, body: boundPod(name, labels) });
    await c.core.patchNamespacedPodStatus(
      { name, namespace: ns, body: { status: { phase: 'Running' } } },
      merge,
    );
  };
  const evict = (name: string, deleteOptions?: object, query = '') =>
    raw(
      c,
      'POST',
      `/api/v1/namespaces/${ns}/pods/${name}/eviction${query}`,
      JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, deleteOptions }),
    );
  const untouched = async (name: string) => {
    const p = await read(name);
    expect(p.metadata?.deletionTimestamp).toBeUndefined();
    return p;
  };

  it('an eviction with deleteOptions.dryRun keeps the pod and does not charge the budget', async () => {
    await running('dry-ev', { app: 'dry-guarded' });
    await policy().createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'dry-pdb' },
        spec: { minAvailable: 0, selector: { matchLabels: { app: 'dry-guarded' } } },
      },
    });
    await policy().patchNamespacedPodDisruptionBudgetStatus(
      {
        name: 'dry-pdb',
        namespace: ns,
        body: {
          status: { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 1, expectedPods: 1 },
        },
      },
      merge,
    );
    const before = await read('dry-ev');
    const res = await evict('dry-ev', { dryRun: ['All'], gracePeriodSeconds: 0 });
    expect(res.code).toBe(201);
    const after = await untouched('dry-ev');
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    const pdb = await policy().readNamespacedPodDisruptionBudget({ name: 'dry-pdb', namespace: ns });
    expect(pdb.status?.disruptionsAllowed).toBe(1);
    expect(pdb.status?.disruptedPods ?? {}).toEqual({});
    // the dry run still says what the real eviction would: the budget is checked
    await policy().patchNamespacedPodDisruptionBudgetStatus(
      { name: 'dry-pdb', namespace: ns, body: { status: { disruptionsAllowed: 0 } } },
      merge,
    );
    expect((await evict('dry-ev', { dryRun: ['All'] })).code).toBe(429);
  });

  it('a dry-run eviction of a pod that skips the budget (pending) keeps it too', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('dry-pending') });
    expect((await evict('dry-pending', { dryRun: ['All'] })).code).toBe(201);
    await untouched('dry-pending');
    expect((await evict('dry-pending', {}, '?dryRun=All')).code).toBe(201);
    await untouched('dry-pending');
  });

  it('rejects a dryRun value other than All in an eviction, changing nothing', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('dry-bad') });
    const res = await evict('dry-bad', { dryRun: ['Some'] });
    expect(res.code).toBe(422);
    expect(res.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    );
    await untouched('dry-bad');
  });

  it('DELETE with dryRun in the body keeps the pod, even with grace 0', async () => {
    await running('dry-del', { app: 'dry-del' });
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('dry-del-pending') });
    for (const name of ['dry-del', 'dry-del-pending']) {
      const res = await raw(
        c,
        'DELETE',
        `/api/v1/namespaces/${ns}/pods/${name}`,
        JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], gracePeriodSeconds: 0 }),
      );
      expect(res.code).toBe(200);
      await untouched(name);
    }
  });

  it('deletecollection with dryRun in the body or the query keeps every pod', async () => {
    await running('dry-dc-1', { batch: 'dry-dc' });
    await c.core.createNamespacedPod({
      namespace: ns,
      body: podSpec('dry-dc-2', { metadata: { name: 'dry-dc-2', labels: { batch: 'dry-dc' } } }),
    });
    const body = await raw(
      c,
      'DELETE',
      `/api/v1/namespaces/${ns}/pods?labelSelector=batch%3Ddry-dc`,
      JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], gracePeriodSeconds: 0 }),
    );
    expect(body.code).toBe(200);
    expect(body.body.items.map((p: k8s.V1Pod) => p.metadata?.name).sort()).toEqual(['dry-dc-1', 'dry-dc-2']);
    await c.core.deleteCollectionNamespacedPod({
      namespace: ns,
      labelSelector: 'batch=dry-dc',
      dryRun: 'All',
      gracePeriodSeconds: 0,
    });
    await untouched('dry-dc-1');
    await untouched('dry-dc-2');
  });

  it('binding, status, PATCH and PUT with ?dryRun=All store nothing', async () => {
    await c.core.createNamespacedPod({ namespace: ns, body: podSpec('dry-misc') });
    const before = await read('dry-misc');
    await c.core.createNamespacedBinding({
      namespace: ns,
      dryRun: 'All',
      body: { metadata: { name: 'dry-misc' }, target: { kind: 'Node', name: 'node-9' } },
    });
    await c.core.patchNamespacedPodStatus(
      { name: 'dry-misc', namespace: ns, dryRun: 'All', body: { status: { phase: 'Running' } } },
      merge,
    );
    await c.core.patchNamespacedPod(
      { name: 'dry-misc', namespace: ns, dryRun: 'All', body: { metadata: { labels: { x: 'y' } } } },
      merge,
    );
    await c.core.replaceNamespacedPod({
      name: 'dry-misc',
      namespace: ns,
      dryRun: 'All',
      body: { ...before, metadata: { ...before.metadata, labels: { replaced: 'yes' } } },
    });
    const after = await read('dry-misc');
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.spec?.nodeName).toBeUndefined();
    expect(after.status?.phase).toBe(before.status?.phase);
  });
});
