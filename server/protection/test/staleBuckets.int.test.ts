// Buckets for deletions that never happen, on a quiet cluster: an eviction the webhook
// admitted but a PodDisruptionBudget then refused leaves a bucket for a pod that keeps
// running. Nothing else happens on the cluster (fixture pods, no kubelet), yet the update
// trigger's heartbeat keeps the aggregator's pod stream moving, so the bucket is dropped
// within seconds and the deletion it blocked with 409 is admitted. And once the
// aggregator has caught up, the webhook judges on its fresh counts, not on its own
// last write; and pod events that change no count do not rewrite the status.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import {
  bucketsOf,
  bufferFull,
  CELL,
  createFixturePods,
  createProtector,
  denied,
  describeStatus,
  type Env,
  evict,
  getProtector,
  markReady,
  podAlive,
  podGone,
  recordVersions,
  refusal,
  startEnv,
  statusMatches,
  tooFew,
} from './protectionHarness.js';

const spaces = ['quiet', 'stale', 'room'];
let env: Env;

beforeAll(async () => {
  env = await startEnv('protection-stale', spaces);
}, 60_000);

afterAll(() => env?.stop());

async function fixture(ns: string, names: string[], minAvailable: number) {
  const labels = { 'podseidon-e2e/test': ns };
  const pods = await createFixturePods(env.core, ns, names, labels);
  for (const n of names) await markReady(env.core, ns, n, new Date(Date.now() - 60_000));
  await createProtector(env.custom, ns, 'protector', { minAvailable, selector: labels });
  await waitStatus(ns, names.length);
  return new Map(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));
}

/** n pods, all available, no bucket — in the API and in the webhook's informer */
async function waitStatus(ns: string, n: number, timeoutMs = 10_000) {
  const key = `${ns}/protector`;
  await eventually(
    async () => {
      const p = await getProtector(env.custom, ns, 'protector');
      return (
        statusMatches(p, { total: n, aggregated: n, estimated: n, cells: { [CELL]: [n, n] } }) &&
        bucketsOf(p, CELL).length === 0
      );
    },
    `${key}: ${n} available, no bucket`,
    timeoutMs,
  ).catch(async (e) => {
    throw new Error(`${e.message}: ${describeStatus(await getProtector(env.custom, ns, 'protector'))}`);
  });
  await eventually(() => {
    const s = env.protection.store.get(key)?.protector.status?.summary;
    return s?.totalReplicas === n && s.estimatedAvailableReplicas === n;
  }, 'the webhook sees it');
}

describe('stale buckets on a quiet cluster', () => {
  it('the update trigger heartbeat keeps every cell’s pod stream moving', async () => {
    const first = await eventually(
      () => env.core.readNamespacedPod({ namespace: 'default', name: 'podseidon-update-trigger' }),
      'the update-trigger pod',
    );
    const t0 = first.metadata?.annotations?.['podseidon.kubewharf.io/update-trigger-time'];
    expect(t0).toBeDefined();
    expect(first.spec?.nodeName).toBeUndefined();
    await eventually(async () => {
      const p = await env.core.readNamespacedPod({ namespace: 'default', name: 'podseidon-update-trigger' });
      return p.metadata?.annotations?.['podseidon.kubewharf.io/update-trigger-time'] !== t0;
    }, 'a newer heartbeat');
  });

  it('pod events that change no count do not rewrite the status', async () => {
    const ns = 'quiet';
    await fixture(ns, ['q-0', 'q-1'], 1);
    const versions = recordVersions(env.protection, `${ns}/protector`);
    const unchanged = async () =>
      (await env.protection.metrics.reconciles.get()).values.find(
        (v) => v.labels.cell === CELL && v.labels.outcome === 'unchanged',
      )?.value ?? 0;
    for (const stamp of ['1', '2']) {
      const before = await unchanged();
      await env.core.patchNamespacedPod(
        { namespace: ns, name: 'q-0', body: { metadata: { annotations: { 'example.com/stamp': stamp } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await eventually(async () => (await unchanged()) > before, 'the aggregator re-counts');
    }
    expect(versions).toEqual([]);
  });

  it('a bucket left by an eviction the PDB refused is cleared, and the deletion it blocked is admitted', async () => {
    const ns = 'stale';
    const key = `${ns}/protector`;
    const uids = await fixture(ns, ['pod-0', 'pod-1', 'pod-2'], 2);
    const policy = env.cluster.kc.makeApiClient(k8s.PolicyV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'all' },
        spec: { minAvailable: 3, selector: { matchLabels: { 'podseidon-e2e/test': ns } } },
      },
    });
    await eventually(async () => {
      const b = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'all' });
      return b.status?.observedGeneration === b.metadata?.generation && b.status?.currentHealthy === 3;
    }, 'the PDB is processed');
    const versions = recordVersions(env.protection, key);

    // the webhook admits (3 available, floor 2), then the budget refuses: the pod stays
    const ev = await refusal(evict(env.core, ns, 'pod-0'));
    expect(ev.code).toBe(429);
    expect(ev.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(await podAlive(env.core, ns, 'pod-0')).toBe(true);
    const admittedAt = Date.now();
    expect(versions.some((v) => bucketsOf(v, CELL).some((b) => b.podUID === uids.get('pod-0')))).toBe(true);

    // its bucket holds the quota: the next deletion must wait
    expect(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-1' }))).toEqual({
      code: 409,
      message: denied(bufferFull(key)),
    });

    // nothing happens on the cluster; the heartbeat moves the snapshot past the bucket
    // and, as its pod still runs, the grace for an admission on its way (5 s) runs out
    await waitStatus(ns, 3, 15_000);
    expect(Date.now() - admittedAt).toBeLessThan(12_000);
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-1' });
    expect(await podGone(env.core, ns, 'pod-1')).toBe(true);
  });

  it('after the aggregator catches up the webhook judges on its counts: 429 at the floor, admitted once a pod is back', async () => {
    const ns = 'room';
    const key = `${ns}/protector`;
    await fixture(ns, ['a', 'b', 'c'], 2);
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'a' });
    await waitStatus(ns, 2);
    // at the floor now, and no lag left: "too few", not "full buffer"
    expect(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'b' }))).toEqual({
      code: 429,
      message: denied(tooFew(key)),
    });
    await createFixturePods(env.core, ns, ['d'], { 'podseidon-e2e/test': ns });
    await markReady(env.core, ns, 'd', new Date(Date.now() - 60_000));
    await waitStatus(ns, 3);
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'b' });
    expect(await podGone(env.core, ns, 'b')).toBe(true);
  });
});
