// StatefulSet and ReplicaSet controllers against the embedded API server, with a
// stand-in kubelet. The StatefulSet half checks the at-most-one rule of seed 000; the
// ReplicaSet half checks availability first (replacement before the old pod is gone).
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../apiserver/test/harness.js';
import { ReplicaSetController } from '../replicaSet.js';
import { mergePatch } from '../runtime/patches.js';
import { StatefulSetController } from '../statefulSet.js';
import { container, startWorkloads, type Workloads } from './workloadsHarness.js';

let w: Workloads;
const ns = 'sts';
beforeAll(async () => {
  w = await startWorkloads([new StatefulSetController(), new ReplicaSetController()], [ns, 'rs']);
});
afterAll(() => w?.stop());

const statefulSet = (name: string, spec: Partial<k8s.V1StatefulSetSpec> = {}): k8s.V1StatefulSet => ({
  metadata: { name, namespace: ns },
  spec: {
    replicas: 3,
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [container()] } },
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
    ...spec,
  },
});
const pod = (name: string) => w.kubelet.pods.get(name, ns);
const readSet = (name: string) => w.c.apps.readNamespacedStatefulSet({ name, namespace: ns });
const ready = (p?: k8s.V1Pod) =>
  !!p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const finish = (name: string, namespace = ns) =>
  w.c.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
const held = new Set<string>();

describe('StatefulSet', () => {
  beforeAll(() => {
    w.kubelet.holdReady = (p) => held.has(p.metadata!.name!);
  });

  it('OrderedReady: creates ordinal i only once 0..i-1 are Running and Ready', async () => {
    // what was Ready when each pod first appeared, as the kubelet saw it (in API order)
    const readyAtCreation = new Map<string, string[]>();
    w.kubelet.pods.on({
      add: (p) => {
        if (p.metadata?.namespace !== ns || !p.metadata.name?.startsWith('web-')) return;
        const readyNow = w.kubelet.list(ns, (x) => x.metadata!.name!.startsWith('web-') && ready(x));
        readyAtCreation.set(p.metadata.name, readyNow.map((x) => x.metadata!.name!).sort());
      },
    });
    held.add('web-0');
    await w.c.apps.createNamespacedStatefulSet({ namespace: ns, body: statefulSet('web') });
    await eventually(async () => (await readSet('web')).status?.replicas === 1, 'web status with 1 pod');
    expect(pod('web-1')).toBeUndefined(); // web-0 is not Ready, so the controller waits

    held.delete('web-0');
    w.kubelet.resync();
    await eventually(() => ready(pod('web-2')), 'web-2 ready');
    expect(readyAtCreation.get('web-0')).toEqual([]);
    expect(readyAtCreation.get('web-1')).toEqual(['web-0']);
    expect(readyAtCreation.get('web-2')).toEqual(['web-0', 'web-1']);

    const p0 = pod('web-0')!;
    expect(p0.metadata?.labels).toMatchObject({
      app: 'web',
      'statefulset.kubernetes.io/pod-name': 'web-0',
      'apps.kubernetes.io/pod-index': '0',
    });
    expect(p0.metadata?.labels?.['controller-revision-hash']).toMatch(/^web-[a-z0-9]+$/);
    expect(p0.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'StatefulSet',
      name: 'web',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(p0.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(
      'data-web-0',
    );
    await w.c.core.readNamespacedPersistentVolumeClaim({ name: 'data-web-2', namespace: ns });
    const s = await eventually(async () => {
      const set = await readSet('web');
      return set.status?.readyReplicas === 3 && set;
    }, 'status ready 3');
    expect(s.status).toMatchObject({
      replicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    expect(s.status?.currentRevision).toBe(s.status?.updateRevision);
    expect(s.status?.currentRevision).toBe(p0.metadata?.labels?.['controller-revision-hash']);
  });

  it('a Terminating pod blocks its identity until its object is gone, then comes back with the same name and claim', async () => {
    await w.c.apps.createNamespacedStatefulSet({ namespace: ns, body: statefulSet('db', { replicas: 1 }) });
    const old = await eventually(() => ready(pod('db-0')) && pod('db-0'), 'db-0 ready');
    const claim = await w.c.core.readNamespacedPersistentVolumeClaim({ name: 'data-db-0', namespace: ns });
    await w.c.core.deleteNamespacedPod({ name: 'db-0', namespace: ns }); // graceful: 30 s
    // the controller has seen the terminating pod once its status stops counting it as current
    // but still as created (a zero count: kube-apiserver leaves it out, omitempty)
    await eventually(async () => {
      const st = (await readSet('db')).status;
      return st?.replicas === 1 && (st.currentReplicas ?? 0) === 0;
    }, 'status saw termination');
    const still = await w.c.core.readNamespacedPod({ name: 'db-0', namespace: ns });
    expect(still.metadata?.uid).toBe(old.metadata?.uid);
    expect(still.metadata?.deletionTimestamp).toBeTruthy();
    expect((await w.c.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=db' })).items).toHaveLength(
      1,
    );

    await finish('db-0'); // the kubelet confirms the containers stopped
    const fresh = await eventually(() => {
      const p = pod('db-0');
      return p && p.metadata?.uid !== old.metadata?.uid && p;
    }, 'db-0 recreated');
    expect(fresh.metadata?.deletionTimestamp).toBeUndefined();
    expect(fresh.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(
      'data-db-0',
    );
    const sameClaim = await w.c.core.readNamespacedPersistentVolumeClaim({
      name: 'data-db-0',
      namespace: ns,
    });
    expect(sameClaim.metadata?.uid).toBe(claim.metadata?.uid);
  });

  it('Parallel: creates every pod without waiting for readiness', async () => {
    for (const i of [0, 1, 2]) held.add(`par-${i}`);
    await w.c.apps.createNamespacedStatefulSet({
      namespace: ns,
      body: statefulSet('par', { podManagementPolicy: 'Parallel' }),
    });
    await eventually(
      () => ['par-0', 'par-1', 'par-2'].every((n) => pod(n)?.status?.phase === 'Running'),
      'all running',
    );
    expect(['par-0', 'par-1', 'par-2'].some((n) => ready(pod(n)))).toBe(false);
    // and a terminating identity is still not replaced, even in Parallel
    await w.c.core.deleteNamespacedPod({ name: 'par-1', namespace: ns });
    await eventually(
      async () => (await readSet('par')).status?.currentReplicas === 2,
      'status saw termination',
    );
    expect(pod('par-1')?.metadata?.deletionTimestamp).toBeTruthy();
  });

  it('scales down from the highest ordinal, one at a time, keeping the claims', async () => {
    await w.c.apps.patchNamespacedStatefulSet(
      { name: 'web', namespace: ns, body: { spec: { replicas: 1 } } },
      mergePatch,
    );
    await eventually(() => pod('web-2')?.metadata?.deletionTimestamp, 'web-2 terminating');
    await eventually(
      async () => (await readSet('web')).status?.observedGeneration === 2,
      'observed the scale',
    );
    expect(pod('web-1')?.metadata?.deletionTimestamp).toBeUndefined(); // waits for web-2 to be gone
    await finish('web-2');
    await eventually(() => pod('web-1')?.metadata?.deletionTimestamp, 'web-1 terminating');
    await finish('web-1');
    await eventually(async () => (await readSet('web')).status?.replicas === 1, 'status 1 replica');
    expect(pod('web-0')?.metadata?.deletionTimestamp).toBeUndefined();
    await w.c.core.readNamespacedPersistentVolumeClaim({ name: 'data-web-2', namespace: ns });
  });

  // each try (CI retries a failed test once) rolls out an image of its own: a retry is a new revision
  let rollouts = 0;
  it('rolling update: replaces pods highest ordinal first, each after the previous is Ready', async () => {
    const image = `nginx:1.27.${++rollouts}`;
    await w.c.apps.patchNamespacedStatefulSet(
      { name: 'web', namespace: ns, body: { spec: { replicas: 3 } } },
      mergePatch,
    );
    await eventually(async () => (await readSet('web')).status?.readyReplicas === 3, '3 ready');
    // for each pod that starts terminating: was the next higher ordinal already updated and Ready?
    const order: string[] = [];
    const higherReady: boolean[] = [];
    const updated = (n: number) => pod(`web-${n}`)?.spec?.containers[0].image === image;
    w.kubelet.pods.on({
      update: (p, prev) => {
        if (p.metadata?.namespace !== ns || !p.metadata.deletionTimestamp || prev.metadata?.deletionTimestamp)
          return;
        // each ordinal's first replacement is what the order is about: at load 15,
        // kube-controller-manager once deleted web-1's replacement too before going on to web-0
        // (web-2, web-1, web-1, web-0; the rollout still ended with all three updated and Ready)
        if (order.includes(p.metadata.name!)) return;
        order.push(p.metadata.name!);
        const n = Number(p.metadata.name!.slice(4));
        if (n < 2) higherReady.push(updated(n + 1) && ready(pod(`web-${n + 1}`)));
      },
    });
    w.kubelet.finish = (p) => p.metadata?.namespace === ns && p.metadata.name!.startsWith('web-');
    const before = (await readSet('web')).status?.currentRevision;
    await w.c.apps.patchNamespacedStatefulSet(
      {
        name: 'web',
        namespace: ns,
        body: { spec: { template: { spec: { containers: [container(image)] } } } },
      },
      mergePatch,
    );
    const done = await eventually(
      async () => {
        const s = await readSet('web');
        const st = s.status;
        const settled =
          st?.observedGeneration === s.metadata?.generation && st?.currentRevision === st?.updateRevision;
        return settled && st?.updatedReplicas === 3 && st.readyReplicas === 3 && s;
      },
      'rolled out',
      20_000,
    );
    expect(order).toEqual(['web-2', 'web-1', 'web-0']);
    expect(higherReady).toEqual([true, true]);
    expect(done.status?.currentRevision).not.toBe(before);
    expect(pod('web-0')?.spec?.containers[0].image).toBe(image);
    w.kubelet.finish = () => false;
  });
});

describe('ReplicaSet', () => {
  const rsNs = 'rs';
  const replicaSet = (name: string, replicas: number): k8s.V1ReplicaSet => ({
    metadata: { name, namespace: rsNs },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [container()] } },
    },
  });
  const pods = (app: string) => w.kubelet.list(rsNs, (p) => p.metadata?.labels?.app === app);
  const readRs = (name: string) => w.c.apps.readNamespacedReplicaSet({ name, namespace: rsNs });

  it('creates a replacement as soon as a pod gets a deletionTimestamp, before it is gone', async () => {
    await w.c.apps.createNamespacedReplicaSet({ namespace: rsNs, body: replicaSet('api', 2) });
    await eventually(() => pods('api').filter(ready).length === 2, '2 ready');
    const [victim] = pods('api');
    expect(victim.metadata?.name).toMatch(/^api-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    await w.c.core.deleteNamespacedPod({ name: victim.metadata!.name!, namespace: rsNs });
    await eventually(
      () => pods('api').filter((p) => !p.metadata?.deletionTimestamp).length === 2,
      'replacement',
    );
    // the terminating pod is still there: both copies run at once (availability first)
    const terminating = await w.c.core.readNamespacedPod({ name: victim.metadata!.name!, namespace: rsNs });
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    const s = await eventually(async () => {
      const rs = await readRs('api');
      return rs.status?.readyReplicas === 2 && rs;
    }, 'status');
    expect(s.status).toMatchObject({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });
    await finish(victim.metadata!.name!, rsNs);
  });

  it('scales down the not-ready pod first', async () => {
    await w.c.apps.createNamespacedReplicaSet({ namespace: rsNs, body: replicaSet('cache', 2) });
    await eventually(() => pods('cache').filter(ready).length === 2, '2 ready');
    const readyOnes = new Set(pods('cache').map((p) => p.metadata!.name!));
    w.kubelet.holdReady = (p) => p.metadata?.labels?.app === 'cache' && !readyOnes.has(p.metadata.name!);
    await w.c.apps.patchNamespacedReplicaSet(
      { name: 'cache', namespace: rsNs, body: { spec: { replicas: 3 } } },
      mergePatch,
    );
    const unready = await eventually(
      () => pods('cache').find((p) => p.status?.phase === 'Running' && !ready(p)),
      'a running, unready third pod',
    );
    await w.c.apps.patchNamespacedReplicaSet(
      { name: 'cache', namespace: rsNs, body: { spec: { replicas: 2 } } },
      mergePatch,
    );
    await eventually(() => pod2(unready.metadata!.name!)?.metadata?.deletionTimestamp, 'unready pod deleted');
    expect(pods('cache').filter((p) => p.metadata?.deletionTimestamp)).toHaveLength(1);
  });
  const pod2 = (name: string) => w.kubelet.pods.get(name, rsNs);
});
