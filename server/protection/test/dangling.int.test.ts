// A PodProtector that vanishes from the core cluster without being retired (it still
// held its finalizer and had no deletionTimestamp — an etcd-level removal, a restore
// from an older backup) keeps protecting from its last copy: the webhook books
// admissions in memory and refuses beyond the floor, and the service reports it as
// dangling until an operator forgets it on purpose. A protector retired through the
// API (finalizer removed, then deleted) is simply gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { removeFromStorage } from '../../../sim/test/storage.js';
import { protectorRow } from '../../trpc/protection.js';
import {
  bufferFull,
  createFixturePods,
  createProtector,
  denied,
  type Env,
  GROUP,
  getProtector,
  markReady,
  PLURAL,
  patchProtector,
  podAlive,
  podGone,
  refusal,
  startEnv,
  VERSION,
  untilAllAvailable,
} from './protectionHarness.js';

const spaces = ['dangling', 'retired'];
let env: Env;

async function fixture(ns: string) {
  const labels = { 'podseidon-e2e/test': ns };
  const names = ['pod-0', 'pod-1', 'pod-2', 'pod-3'];
  await createFixturePods(env.core, ns, names, labels);
  for (const n of names) await markReady(env.core, ns, n, new Date(Date.now() - 60_000));
  // a finalizer as the generator puts one, without source labels (no workload to sync)
  await createProtector(env.custom, ns, 'protector', {
    minAvailable: 2,
    selector: labels,
    finalizers: ['podseidon.kubewharf.io/generator'],
  });
  await untilAllAvailable(env, ns, 'protector', 4, 15_000);
}

beforeAll(async () => {
  env = await startEnv('protection-dangling', spaces);
  await Promise.all(spaces.map(fixture));
}, 60_000);

afterAll(() => env?.stop());

describe('a protector that vanishes without being retired', () => {
  const ns = 'dangling';
  const key = `${ns}/protector`;

  it('is reported dangling once it is gone from the API', async () => {
    expect(await removeFromStorage(env.cluster, GROUP, VERSION, PLURAL, ns, 'protector')).toBe(true);
    await expect(getProtector(env.custom, ns, 'protector')).rejects.toMatchObject({ code: 404 });
    const e = await eventually(
      () => env.protection.store.get(key)?.dangling && env.protection.store.get(key),
    );
    const row = protectorRow(env.protection, e!);
    expect(row).toMatchObject({ key, dangling: true, state: 'dangling', minAvailable: 2, aggregated: 4 });
  });

  it('keeps protecting: deletions within the quota are admitted and booked, the next are refused', async () => {
    // 4 available, floor 2: two deletions fit
    for (const name of ['pod-0', 'pod-1']) {
      await env.core.deleteNamespacedPod({ namespace: ns, name });
      expect(await podGone(env.core, ns, name)).toBe(true);
    }
    const booked = env.protection.store.get(key)!;
    expect(booked.dangling).toBe(true);
    expect(protectorRow(env.protection, booked)).toMatchObject({ aggregated: 4, estimated: 2, lag: 2 });
    // no aggregator counts a protector the API no longer has: its admissions stay booked
    for (const name of ['pod-2', 'pod-3']) {
      expect(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name }))).toEqual({
        code: 409,
        message: denied(bufferFull(key)),
      });
      expect(await podAlive(env.core, ns, name)).toBe(true);
    }
  });

  it('stops protecting only when forgotten on purpose', async () => {
    expect(env.protection.store.forget(key)).toBe(true);
    expect(env.protection.store.get(key)).toBeUndefined();
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'pod-2' });
    expect(await podGone(env.core, ns, 'pod-2')).toBe(true);
  });

  it('a protector retired through the API (finalizer removed, then deleted) is gone, not dangling', async () => {
    const ns = 'retired';
    await patchProtector(env.custom, ns, 'protector', { metadata: { finalizers: null } });
    await env.custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: ns,
      name: 'protector',
    });
    await eventually(() => !env.protection.store.get(`${ns}/protector`), 'the store forgets it');
    for (const name of ['pod-0', 'pod-1', 'pod-2', 'pod-3'])
      await env.core.deleteNamespacedPod({ namespace: ns, name });
  });
});
