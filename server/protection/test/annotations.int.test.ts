// Podseidon's pod annotations on the embedded cluster. health-criterion (e2e W6 and
// beyond): the annotation on the pod — or, for an eviction, on the Eviction object, which
// wins over the pod's — picks the count a deletion is judged by (Available, Ready,
// Running, Scheduled), and the refusal names it ("too few running replicas").
// force-delete: the pod is never refused, yet a deletion the quota admits is booked like
// any other, so it cannot be spent twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import {
  CELL,
  cellOf,
  createFixturePods,
  createProtector,
  bufferFull,
  CRITERION,
  denied,
  describeStatus,
  type Env,
  evict,
  getProtector,
  kubeletPod,
  markReady,
  markRunningNotReady,
  patchProtector,
  podAlive,
  podGone,
  podPhase,
  refusal,
  startEnv,
  tooFew,
} from './protectionHarness.js';

const FORCE = 'podseidon.kubewharf.io/force-delete';
const spaces = ['w6-delete', 'w6-evict', 'w6-eviction-annotation', 'w6-scheduled', 'force'];
let env: Env;

async function waitCounts(
  ns: string,
  want: { total: number; available: number; running: number; scheduled?: number },
) {
  const key = `${ns}/protector`;
  await eventually(
    async () => {
      const p = await getProtector(env.custom, ns, 'protector');
      const a = cellOf(p, CELL)?.aggregation;
      return (
        a?.totalReplicas === want.total &&
        a.availableReplicas === want.available &&
        a.runningReplicas === want.running &&
        (want.scheduled === undefined || a.scheduledReplicas === want.scheduled)
      );
    },
    `${key} counted`,
    20_000,
  ).catch(async (e) => {
    throw new Error(`${e.message}: ${describeStatus(await getProtector(env.custom, ns, 'protector'))}`);
  });
  await eventually(
    () => env.protection.store.get(key)?.protector.status?.summary?.aggregatedRunning === want.running,
    'the webhook sees the counts',
  );
}

/** W6: one available pod and a peer that runs but is not ready; floor 1. */
async function w6(ns: string) {
  const labels = { 'podseidon-e2e/test': ns };
  await createFixturePods(env.core, ns, ['ready', 'peer'], labels);
  await markReady(env.core, ns, 'ready', new Date(Date.now() - 60_000));
  await markRunningNotReady(env.core, ns, 'peer');
  await createProtector(env.custom, ns, 'protector', { minAvailable: 1, selector: labels });
  await waitCounts(ns, { total: 2, available: 1, running: 2 });
}

async function annotate(ns: string, name: string, criterion: string) {
  await env.core.patchNamespacedPod(
    { namespace: ns, name, body: { metadata: { annotations: { [CRITERION]: criterion } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

beforeAll(async () => {
  env = await startEnv('protection-criterion', spaces);
  await Promise.all(spaces.slice(0, 3).map(w6));
}, 60_000);

afterAll(() => env?.stop());

describe('health criterion', () => {
  it('deletion, pod annotation: available refuses, ready refuses, running admits (W6)', async () => {
    const ns = 'w6-delete';
    const del = () => env.core.deleteNamespacedPod({ namespace: ns, name: 'ready' });
    expect(await refusal(del())).toEqual({ code: 429, message: denied(tooFew(`${ns}/protector`)) });
    await annotate(ns, 'ready', 'Ready');
    expect(await refusal(del())).toEqual({ code: 429, message: denied(tooFew(`${ns}/protector`, 'ready')) });
    expect(await podAlive(env.core, ns, 'ready')).toBe(true);
    await annotate(ns, 'ready', 'Running');
    await del();
    expect(await podGone(env.core, ns, 'ready')).toBe(true);
  });

  it('eviction, pod annotation: refused as available, admitted once the pod says Running (W6)', async () => {
    const ns = 'w6-evict';
    expect(await refusal(evict(env.core, ns, 'ready'))).toEqual({
      code: 429,
      message: denied(tooFew(`${ns}/protector`)),
    });
    await annotate(ns, 'ready', 'Running');
    // the Eviction's own annotation wins over the pod's
    expect(await refusal(evict(env.core, ns, 'ready', { [CRITERION]: 'Ready' }))).toEqual({
      code: 429,
      message: denied(tooFew(`${ns}/protector`, 'ready')),
    });
    await evict(env.core, ns, 'ready');
    expect(await podGone(env.core, ns, 'ready')).toBe(true);
  });

  it('eviction with the annotation on the Eviction object only: admitted directly (W6)', async () => {
    const ns = 'w6-eviction-annotation';
    await evict(env.core, ns, 'ready', { [CRITERION]: 'Running' });
    expect(await podGone(env.core, ns, 'ready')).toBe(true);
    // a plain deletion of the peer (not ready) is admitted whatever the criterion
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'peer' });
  });

  it('Scheduled counts pods on nodes: refused at the floor with "too few scheduled replicas"', async () => {
    const ns = 'w6-scheduled';
    const labels = { 'podseidon-e2e/test': ns };
    await env.core.createNamespacedPod({ namespace: ns, body: kubeletPod('ready', labels) });
    await env.core.createNamespacedPod({ namespace: ns, body: kubeletPod('peer', labels, 600_000) });
    await eventually(async () => (await podPhase(env.core, ns, 'ready')).ready, 'ready is ready');
    await eventually(async () => (await podPhase(env.core, ns, 'peer')).phase === 'Running', 'peer runs');
    await createProtector(env.custom, ns, 'protector', { minAvailable: 2, selector: labels });
    await waitCounts(ns, { total: 2, available: 1, running: 2, scheduled: 2 });
    await annotate(ns, 'ready', 'Scheduled');
    const del = () => env.core.deleteNamespacedPod({ namespace: ns, name: 'ready' });
    expect(await refusal(del())).toEqual({
      code: 429,
      message: denied(tooFew(`${ns}/protector`, 'scheduled')),
    });
    await patchProtector(env.custom, ns, 'protector', { spec: { minAvailable: 1 } });
    await eventually(
      () => env.protection.store.get(`${ns}/protector`)?.protector.spec.minAvailable === 1,
      'the webhook sees floor 1',
    );
    await del();
    expect(await podGone(env.core, ns, 'ready')).toBe(true);
  });
});

describe('force-delete', () => {
  const ns = 'force';
  const key = `${ns}/protector`;

  it('a forced deletion at the floor is admitted', async () => {
    const labels = { 'podseidon-e2e/test': ns };
    await createFixturePods(env.core, ns, ['pod-0', 'pod-1', 'pod-2', 'pod-3'], labels);
    for (const n of ['pod-0', 'pod-1', 'pod-2', 'pod-3'])
      await markReady(env.core, ns, n, new Date(Date.now() - 60_000));
    await createProtector(env.custom, ns, 'protector', {
      minAvailable: 4,
      selector: labels,
      config: { aggregationRateMillis: 2000 },
    });
    await waitCounts(ns, { total: 4, available: 4, running: 4 });
    await env.core.patchNamespacedPod(
      { namespace: ns, name: 'pod-0', body: { metadata: { annotations: { [FORCE]: 'true' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-0' });
    expect(await podGone(env.core, ns, 'pod-0')).toBe(true);
    expect(env.protection.decisions.recent(key)[0]).toMatchObject({ allowed: true, note: 'force-delete' });
  });

  it('a forced deletion the quota admits is booked: the deletion right after it must wait', async () => {
    await waitCounts(ns, { total: 3, available: 3, running: 3 });
    await patchProtector(env.custom, ns, 'protector', { spec: { minAvailable: 2 } });
    await eventually(() => env.protection.store.get(key)?.protector.spec.minAvailable === 2, 'floor 2');
    await env.core.patchNamespacedPod(
      { namespace: ns, name: 'pod-1', body: { metadata: { annotations: { [FORCE]: 'true' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    // 3 available, floor 2: room for one deletion, and the forced one takes it
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-1' });
    // 409 while the forced one is booked, 429 once the aggregator has counted it
    const r = await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-2' }));
    expect(r).toEqual(
      r.code === 409
        ? { code: 409, message: denied(bufferFull(key)) }
        : { code: 429, message: denied(tooFew(key)) },
    );
    expect(await podAlive(env.core, ns, 'pod-2')).toBe(true);
  });
});
