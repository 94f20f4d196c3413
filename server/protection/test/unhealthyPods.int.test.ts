// Pods that do not count as available are not protected (Podseidon e2e W4, W5): while
// the workload sits at its floor, a not-ready pod (never ready, or running but not ready
// on a kubelet) and a ready pod younger than minReadySeconds (set by hand, or just made
// ready by the kubelet) are deleted or evicted without touching the quota — no bucket is
// ever written — while an available pod is refused 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import {
  CELL,
  cellOf,
  createFixturePods,
  createProtector,
  denied,
  describeStatus,
  type Env,
  evict,
  getProtector,
  kubeletPod,
  markReady,
  patchProtector,
  podAlive,
  podGone,
  podPhase,
  recordVersions,
  refusal,
  startEnv,
  statusMatches,
  tooFew,
} from './protectionHarness.js';

const ns = 'unhealthy';
const key = `${ns}/protector`;
const labels = { 'podseidon-e2e/test': ns };
let env: Env;
let versions: any[];

beforeAll(async () => {
  env = await startEnv('protection-unhealthy', [ns]);
  versions = recordVersions(env.protection, key);
  await createFixturePods(env.core, ns, ['avail-0', 'avail-1', 'young-fixture', 'pending-fixture'], labels);
  const hourAgo = new Date(Date.now() - 3_600_000);
  await markReady(env.core, ns, 'avail-0', hourAgo);
  await markReady(env.core, ns, 'avail-1', hourAgo);
  await markReady(env.core, ns, 'young-fixture', new Date());
  await env.core.createNamespacedPod({ namespace: ns, body: kubeletPod('young-kubelet', labels) });
  await env.core.createNamespacedPod({ namespace: ns, body: kubeletPod('unready-kubelet', labels, 600_000) });
  await createProtector(env.custom, ns, 'protector', {
    minAvailable: 2,
    minReadySeconds: 600,
    selector: labels,
  });
  await eventually(async () => (await podPhase(env.core, ns, 'young-kubelet')).ready, 'young-kubelet ready');
  await eventually(
    async () => (await podPhase(env.core, ns, 'unready-kubelet')).phase === 'Running',
    'unready-kubelet running',
  );
  // 6 pods: 4 ready, 5 running, 2 available (the floor)
  await eventually(
    async () => {
      const p = await getProtector(env.custom, ns, 'protector');
      const a = cellOf(p, CELL)?.aggregation;
      return (
        statusMatches(p, { total: 6, aggregated: 2, estimated: 2, cells: { [CELL]: [6, 2] } }) &&
        a.readyReplicas === 4 &&
        a.runningReplicas === 5
      );
    },
    'the aggregator counts 6 pods, 2 available',
    20_000,
  ).catch(async (e) => {
    throw new Error(`${e.message}: ${describeStatus(await getProtector(env.custom, ns, 'protector'))}`);
  });
  await eventually(
    () => env.protection.store.get(key)?.protector.status?.summary?.totalReplicas === 6,
    'the webhook sees the counts',
  );
}, 60_000);

afterAll(() => env?.stop());

describe('pods that are not available, at the floor', () => {
  it('an available pod is refused 429 (the floor holds)', async () => {
    expect(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'avail-0' }))).toEqual({
      code: 429,
      message: denied(tooFew(key)),
    });
    expect(await podAlive(env.core, ns, 'avail-0')).toBe(true);
  });

  it('ready but younger than minReadySeconds: admitted (W5), set by hand or by the kubelet', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'young-fixture' });
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'young-kubelet' });
    expect(await podGone(env.core, ns, 'young-fixture')).toBe(true);
    expect(await podGone(env.core, ns, 'young-kubelet')).toBe(true);
  });

  it('never ready (W4), or running but not ready on a kubelet: deleted and evicted', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pending-fixture' });
    await evict(env.core, ns, 'unready-kubelet');
    expect(await podGone(env.core, ns, 'pending-fixture')).toBe(true);
    expect(await podGone(env.core, ns, 'unready-kubelet')).toBe(true);
  });

  it('spent no quota: no bucket was ever written, and the one deletion a lower floor allows is admitted', async () => {
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) expect(v.status?.summary?.estimatedAvailableReplicas ?? 2).toBe(2);
    expect(versions.flatMap((v) => cellOf(v, CELL)?.admissionHistory?.buckets ?? [])).toEqual([]);
    await eventually(
      async () =>
        statusMatches(await getProtector(env.custom, ns, 'protector'), {
          total: 2,
          aggregated: 2,
          estimated: 2,
          cells: { [CELL]: [2, 2] },
        }),
      'only the 2 available pods are left',
    );
    expect(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'avail-0' }))).toEqual({
      code: 429,
      message: denied(tooFew(key)),
    });
    // with a floor of 1 one deletion fits; any lag left by the admissions above would make it 409
    await patchProtector(env.custom, ns, 'protector', { spec: { minAvailable: 1 } });
    await eventually(
      () => env.protection.store.get(key)?.protector.spec.minAvailable === 1,
      'the webhook sees the new floor',
    );
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'avail-0' });
    expect(await podGone(env.core, ns, 'avail-0')).toBe(true);
  });
});
