// The aggregation is only as fresh as the aggregator's last write. In the fault run (seeds 40
// and 71) the aggregator's leader changed 33 times in 4 minutes and the webhook booked a deletion
// against counts 31 s old, while a pod had stopped being available: the floor broke. Podseidon
// judges on the aggregation alone; Palisade also bounds each count by its own pod index (every
// replica keeps it). Here the aggregator is stopped, a pod goes not ready, and a deletion the
// stale counts would admit is refused; once the pod is ready again, the same deletion goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import {
  createFixturePods,
  createProtector,
  denied,
  type Env,
  markReady,
  markRunningNotReady,
  podAlive,
  podGone,
  refusal,
  startEnv,
  tooFew,
  untilAllAvailable,
} from './protectionHarness.js';

const ns = 'stale';
const key = `${ns}/protector`;
const labels = { 'podseidon-e2e/test': ns };
let env: Env;

beforeAll(async () => {
  env = await startEnv('protection-stale', [ns]);
  await createFixturePods(env.core, ns, ['p-0', 'p-1', 'p-2'], labels);
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const p of ['p-0', 'p-1', 'p-2']) await markReady(env.core, ns, p, hourAgo);
  await createProtector(env.custom, ns, 'protector', { minAvailable: 2, selector: labels });
  await untilAllAvailable(env, ns, 'protector', 3);
}, 60_000);

afterAll(() => env?.stop());

const index = () => env.protection.aggregators[0];
const indexedAvailable = () => {
  const p = env.protection.store.get(key)!.protector;
  return index().liveCounts(p)?.available;
};

describe('a stale aggregation, bounded by the pod index', () => {
  it('refuses a deletion the stale counts would admit, once a pod stopped being available', async () => {
    index().loop.controller.halt(); // the aggregator stalls, as while its leader keeps changing
    await markRunningNotReady(env.core, ns, 'p-0');
    await eventually(() => indexedAvailable() === 2, 'the index sees 2 available');
    // the status still says 3: Podseidon's rule alone would admit (3 > minAvailable 2)
    expect(env.protection.store.get(key)?.protector.status?.summary?.aggregatedAvailableReplicas).toBe(3);

    const r = await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'p-1' }));
    expect(r.code).toBe(429);
    expect(r.message).toBe(denied(tooFew(key)));
    expect(await podAlive(env.core, ns, 'p-1')).toBe(true);
    const decision = env.protection.decisions.recent(key).find((d) => d.pod === `${ns}/p-1` && !d.allowed);
    expect(decision?.snapshot).toMatchObject({ aggregated: 3, indexed: 2, minAvailable: 2 });
  });

  it('admits it again once the pod is available again, though the aggregation is as old', async () => {
    await markReady(env.core, ns, 'p-0', new Date(Date.now() - 3_600_000));
    await eventually(() => indexedAvailable() === 3, 'the index sees 3 available');
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'p-1' });
    await eventually(() => podGone(env.core, ns, 'p-1'), 'p-1 deleted');
  });
});
