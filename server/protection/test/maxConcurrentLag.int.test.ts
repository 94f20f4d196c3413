// admissionHistoryConfig.maxConcurrentLag on the embedded cluster (Podseidon e2e W3):
// with plenty of quota, no more than maxConcurrentLag deletions are admitted before the
// aggregator has seen them — the next is refused 409 "has full admission buffer" —
// and deletions are admitted again once the aggregator catches up. The aggregators
// ignore the protector at first (aggregator-ignore-ppr) and the test writes its counts,
// so nothing can catch up behind the test's back.
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
  IGNORE_LABEL,
  markReady,
  patchProtector,
  podAlive,
  podGone,
  refusal,
  startEnv,
  statusMatches,
  writeProtectorStatus,
} from './protectionHarness.js';

const ns = 'lag';
const key = `${ns}/protector`;
const labels = { 'podseidon-e2e/test': ns };
const pods = ['pod-0', 'pod-1', 'pod-2', 'pod-3', 'pod-4'];
let env: Env;
const uids = new Map<string, string>();

beforeAll(async () => {
  env = await startEnv('protection-lag', [ns]);
  const readyTime = new Date(Date.now() - 60_000);
  for (const p of await createFixturePods(env.core, ns, pods, labels))
    uids.set(p.metadata!.name!, p.metadata!.uid!);
  for (const p of pods) await markReady(env.core, ns, p, readyTime);
  await createProtector(env.custom, ns, 'protector', {
    minAvailable: 1,
    selector: labels,
    labels: { [IGNORE_LABEL]: 'true' },
    config: { maxConcurrentLag: 2, compactThreshold: 100, aggregationRateMillis: 1000 },
  });
  const counts = { total: 5, scheduled: 0, running: 5, ready: 5, available: 5 };
  await writeProtectorStatus(env.custom, ns, 'protector', [
    { id: CELL, counts, lastEventTime: readyTime.getTime(), buckets: [] },
  ]);
  // the webhook judges from its informer: wait until it has the counts
  await eventually(
    () => env.protection.store.get(key)?.protector.status?.summary?.aggregatedAvailableReplicas === 5,
    'the webhook sees 5 available',
  );
}, 60_000);

afterAll(() => env?.stop());

describe('maxConcurrentLag with quota left', () => {
  it('admits maxConcurrentLag deletions, then refuses the next with 409 full admission buffer', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-0' });
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-1' });
    // 5 available against a floor of 1: quota is not the reason
    const del = await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-2' }));
    expect(del).toEqual({ code: 409, message: denied(bufferFull(key)) });
    const ev = await refusal(evict(env.core, ns, 'pod-2'));
    expect(ev).toEqual({ code: 409, message: denied(bufferFull(key)) });
    expect(await podAlive(env.core, ns, 'pod-2')).toBe(true);
    expect(await podGone(env.core, ns, 'pod-0')).toBe(true);

    const p = await getProtector(env.custom, ns, 'protector');
    expect(statusMatches(p, { total: 5, aggregated: 5, estimated: 3, cells: { [CELL]: [5, 5] } })).toBe(true);
    expect(
      bucketsOf(p, CELL)
        .map((b) => b.podUID)
        .sort(),
    ).toEqual([uids.get('pod-0'), uids.get('pod-1')].sort());
  });

  it('a lowered maxConcurrentLag below the current lag still refuses (no fail-open on a negative remainder)', async () => {
    await patchProtector(env.custom, ns, 'protector', {
      spec: { admissionHistoryConfig: { maxConcurrentLag: 1 } },
    });
    await eventually(
      () => env.protection.store.get(key)?.protector.spec.admissionHistoryConfig?.maxConcurrentLag === 1,
      'the webhook sees maxConcurrentLag 1',
    );
    const del = await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-3' }));
    expect(del).toEqual({ code: 409, message: denied(bufferFull(key)) });
    await patchProtector(env.custom, ns, 'protector', {
      spec: { admissionHistoryConfig: { maxConcurrentLag: 2 } },
    });
  });

  it('admits again once the aggregator has caught up', async () => {
    // hand the protector to the aggregator: it counts 3 pods and drops both buckets
    await patchProtector(env.custom, ns, 'protector', { metadata: { labels: { [IGNORE_LABEL]: null } } });
    const p = await eventually(
      async () => {
        const p = await getProtector(env.custom, ns, 'protector');
        return statusMatches(p, { total: 3, aggregated: 3, estimated: 3, cells: { [CELL]: [3, 3] } }) &&
          bucketsOf(p, CELL).length === 0
          ? p
          : undefined;
      },
      'the aggregator catches up',
      15_000,
    ).catch(async (e) => {
      throw new Error(`${e.message}: ${describeStatus(await getProtector(env.custom, ns, 'protector'))}`);
    });
    expect(p.spec.admissionHistoryConfig.maxConcurrentLag).toBe(2);
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-2' });
    expect(await podGone(env.core, ns, 'pod-2')).toBe(true);
  });
});
