// Deletion protection across cells, as in Podseidon's e2e environment: a core cluster
// holds the PodProtectors, two worker clusters (cells worker-1 and worker-2) run the pods,
// each with its own aggregator, update trigger and webhook registration. Covers A1
// (per-cell aggregation; ready is not available before minReadySeconds; stale buckets
// dropped by the heartbeat), W1 (deletion and eviction across cells), W2
// (deletecollection) and the shared quota: a deletion in one cell is paid for by the other.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionService } from '../service.js';
import {
  baseConfig,
  bucketsOf,
  bufferFull,
  cellOf,
  type Cluster,
  clusterSpec,
  createFixturePods,
  createProtector,
  denied,
  describeStatus,
  evict,
  GROUP,
  getProtector,
  markReady,
  PLURAL,
  podAlive,
  podGone,
  recordVersions,
  refusal,
  scenario,
  statusMatches,
  tooFew,
  VERSION,
} from './protectionHarness.js';
import { palisadeKc } from '../../test/identity.js';
import { startProtectionAlone } from './standalone.js';

const spaces = ['a1', 'quota', 'w1-delete', 'w1-evict', 'w2-collection'];
let core: Cluster;
let workers: Record<'worker-1' | 'worker-2', Cluster>;
let protection: ProtectionService;
let custom: k8s.CustomObjectsApi;

beforeAll(async () => {
  [core, workers] = await Promise.all([
    startScenario(scenario('core')),
    Promise.all([startScenario(scenario('worker-1')), startScenario(scenario('worker-2'))]).then(
      ([a, b]) => ({ 'worker-1': a, 'worker-2': b }),
    ),
  ]);
  for (const c of [core, workers['worker-1'], workers['worker-2']])
    for (const ns of spaces) await createReadyNamespace(c.core, ns);
  custom = core.kc.makeApiClient(k8s.CustomObjectsApi);
  protection = await startProtectionAlone({
    config: {
      ...baseConfig(),
      core: 'core',
      cells: [
        { id: 'worker-1', context: 'worker-1' },
        { id: 'worker-2', context: 'worker-2' },
      ],
    },
    // Palisade acts as the chart's ServiceAccount on each cluster when PALISADE_TEST_IDENTITY=chart
    clusters: await Promise.all(
      (['core', 'worker-1', 'worker-2'] as const).map(async (id) => {
        const c = id === 'core' ? core : workers[id];
        return { ...clusterSpec(id, c), kc: await palisadeKc(c.kc) };
      }),
    ),
  });
}, 90_000);

afterAll(async () => {
  await protection?.stop();
  await Promise.all([core?.stop(), workers?.['worker-1']?.stop(), workers?.['worker-2']?.stop()]);
});

const labelsOf = (ns: string) => ({ 'podseidon-e2e/test': ns });
const names = (cell: string, n: number) => Array.from({ length: n }, (_, i) => `${cell}-pod-${i}`);
const api = (cell: 'worker-1' | 'worker-2') => workers[cell].core;

/** worker-1 × n1 and worker-2 × n2 fixture pods; those in `ready` marked ready at readyTime. */
async function pods(ns: string, n1: number, n2: number, ready: 'all' | string[], readyTime: Date) {
  const uids = new Map<string, string>();
  for (const [cell, n] of [
    ['worker-1', n1],
    ['worker-2', n2],
  ] as const) {
    for (const p of await createFixturePods(api(cell), ns, names(cell, n), labelsOf(ns)))
      uids.set(p.metadata!.name!, p.metadata!.uid!);
    for (const name of names(cell, n))
      if (ready === 'all' || ready.includes(name)) await markReady(api(cell), ns, name, readyTime);
  }
  return uids;
}

type Want = Parameters<typeof statusMatches>[1];
const want = (
  total: number,
  agg: number,
  est: number,
  t1: number,
  t2: number,
  a1: number,
  a2: number,
): Want => ({
  total,
  aggregated: agg,
  estimated: est,
  cells: { 'worker-1': [t1, a1], 'worker-2': [t2, a2] },
});

async function waitStatus(ns: string, w: Want, timeoutMs = 10_000, extra: (p: any) => boolean = () => true) {
  return eventually(
    async () => {
      const p = await getProtector(custom, ns, 'protector');
      return statusMatches(p, w) && extra(p) ? p : undefined;
    },
    `${ns}/protector status ${JSON.stringify(w)}`,
    timeoutMs,
  ).catch(async (e) => {
    throw new Error(`${e.message}: ${describeStatus(await getProtector(custom, ns, 'protector'))}`);
  });
}

/** The webhook judges from its informer: wait until it has this summary too. */
const webhookSees = (ns: string, total: number, estimated: number) =>
  eventually(() => {
    const s = protection.store.get(`${ns}/protector`)?.protector.status?.summary;
    return s?.totalReplicas === total && s.estimatedAvailableReplicas === estimated;
  }, 'the webhook sees the status');

/** Either refusal Podseidon's e2e accepts, with the code that goes with it. */
function expectRefused(r: { code: number; message: string }, key: string) {
  expect([409, 429]).toContain(r.code);
  expect(r.message).toBe(denied(r.code === 409 ? bufferFull(key) : tooFew(key)));
}

/** W1's fixture: floor 5, worker-1 × 3 and worker-2 × 4, all ready; converged. */
async function w1Fixture(ns: string) {
  await createProtector(custom, ns, 'protector', {
    minAvailable: 5,
    selector: labelsOf(ns),
    config: { compactThreshold: 100, aggregationRateMillis: 2000 },
  });
  await pods(ns, 3, 4, 'all', new Date(Date.now() - 60_000));
  await waitStatus(ns, want(7, 7, 7, 3, 4, 3, 4));
  await webhookSees(ns, 7, 7);
}

describe('core + two worker cells', () => {
  it('registers the webhook in each worker with its cell in the path', async () => {
    expect(protection.cells.map((c) => [c.id, c.registered])).toEqual([
      ['worker-1', true],
      ['worker-2', true],
    ]);
    for (const cell of ['worker-1', 'worker-2'] as const) {
      const vwc = await workers[cell].kc
        .makeApiClient(k8s.AdmissionregistrationV1Api)
        .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
      expect(vwc.webhooks?.[0].clientConfig.url).toBe(`${protection.webhook.url}/admission/${cell}`);
    }
    await expect(
      core.kc
        .makeApiClient(k8s.AdmissionregistrationV1Api)
        .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('A1: counts each cell, ready is not available before minReadySeconds, then is by itself', async () => {
    const ns = 'a1';
    await createProtector(custom, ns, 'protector', {
      minAvailable: 1,
      minReadySeconds: 6,
      selector: labelsOf(ns),
      config: { aggregationRateMillis: 1000 },
    });
    await pods(ns, 3, 4, [], new Date());
    await waitStatus(ns, want(7, 0, 0, 3, 4, 0, 0));
    // wire times have whole seconds: readiness may start up to 1 s before T
    const T = Date.now();
    const readyTime = new Date(T);
    for (const name of ['worker-1-pod-0', 'worker-1-pod-1'])
      await markReady(api('worker-1'), ns, name, readyTime);
    for (const name of ['worker-2-pod-0', 'worker-2-pod-1'])
      await markReady(api('worker-2'), ns, name, readyTime);
    const ready = (p: any) =>
      cellOf(p, 'worker-1')?.aggregation.readyReplicas === 2 &&
      cellOf(p, 'worker-2')?.aggregation.readyReplicas === 2;
    const seenReady = await waitStatus(ns, want(7, 0, 0, 3, 4, 0, 0), 5000, ready);
    expect(seenReady.status.summary.aggregatedReady).toBe(4);
    await waitStatus(ns, want(7, 4, 4, 3, 4, 2, 2), 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(T + 5000);
  });

  it('A1: buckets no pod of the cell stands for are dropped within two aggregation periods', async () => {
    const ns = 'a1';
    const fake = ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000001'];
    // the test writes them as Podseidon's e2e does (read, add, write; again on a conflict)
    await eventually(async () => {
      const p = await getProtector(custom, ns, 'protector');
      const c = cellOf(p, 'worker-2');
      const startTime = new Date().toISOString().replace('Z', '000Z');
      c.admissionHistory = { buckets: fake.map((podUID) => ({ startTime, podUID })) };
      p.status.summary.estimatedAvailableReplicas = 2;
      await custom.replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: ns,
        name: 'protector',
        body: p,
      });
      return true;
    }, 'write two buckets');
    const expireTime = Date.now() + 2 * 1000;
    await waitStatus(ns, want(7, 4, 4, 3, 4, 2, 2), 10_000, (p) => bucketsOf(p, 'worker-2').length === 0);
    // Podseidon's e2e allows 2 × aggregationRate; a loaded machine gets two more seconds
    // (without the heartbeat they would stay: nothing else happens in worker-2)
    expect(Date.now()).toBeLessThan(expireTime + 2000);
  });

  it('a deletion in worker-1 spends the shared quota: worker-2 is then refused 429', async () => {
    const ns = 'quota';
    const key = `${ns}/protector`;
    await createProtector(custom, ns, 'protector', {
      minAvailable: 3,
      selector: labelsOf(ns),
      config: { aggregationRateMillis: 1000 },
    });
    const uids = await pods(ns, 2, 2, 'all', new Date(Date.now() - 60_000));
    await waitStatus(ns, want(4, 4, 4, 2, 2, 2, 2));
    await webhookSees(ns, 4, 4);
    const versions = recordVersions(protection, key);
    await api('worker-1').deleteNamespacedPod({ namespace: ns, name: 'worker-1-pod-0' });
    // the admission is booked in worker-1's cell, and the estimate drops at once
    await eventually(
      () =>
        versions.find(
          (v) =>
            bucketsOf(v, 'worker-1').some((b) => b.podUID === uids.get('worker-1-pod-0')) &&
            v.status.summary.estimatedAvailableReplicas === 3,
        ),
      'a bucket in worker-1',
    );
    expect(versions.every((v) => bucketsOf(v, 'worker-2').length === 0)).toBe(true);
    // once worker-1's aggregator has seen it, worker-2 is at the floor
    await waitStatus(ns, want(3, 3, 3, 1, 2, 1, 2), 10_000, (p) => bucketsOf(p, 'worker-1').length === 0);
    await webhookSees(ns, 3, 3);
    expect(
      await refusal(api('worker-2').deleteNamespacedPod({ namespace: ns, name: 'worker-2-pod-0' })),
    ).toEqual({
      code: 429,
      message: denied(tooFew(key)),
    });
    expect(await refusal(evict(api('worker-2'), ns, 'worker-2-pod-1'))).toEqual({
      code: 429,
      message: denied(tooFew(key)),
    });
    expect(await podAlive(api('worker-2'), ns, 'worker-2-pod-0')).toBe(true);
    expect(await podAlive(api('worker-2'), ns, 'worker-2-pod-1')).toBe(true);
  });

  it('W1: allows normal deletion in both cells and rejects extra deletion', async () => {
    const ns = 'w1-delete';
    await w1Fixture(ns);
    await api('worker-1').deleteNamespacedPod({ namespace: ns, name: 'worker-1-pod-0' });
    await api('worker-2').deleteNamespacedPod({ namespace: ns, name: 'worker-2-pod-0' });
    expectRefused(
      await refusal(api('worker-1').deleteNamespacedPod({ namespace: ns, name: 'worker-1-pod-1' })),
      `${ns}/protector`,
    );
    expect(await podAlive(api('worker-1'), ns, 'worker-1-pod-1')).toBe(true);
    expect(await podGone(api('worker-2'), ns, 'worker-2-pod-0')).toBe(true);
  });

  it('W1: allows normal eviction in both cells and rejects extra eviction', async () => {
    const ns = 'w1-evict';
    await w1Fixture(ns);
    await evict(api('worker-1'), ns, 'worker-1-pod-0');
    await evict(api('worker-2'), ns, 'worker-2-pod-0');
    expectRefused(await refusal(evict(api('worker-1'), ns, 'worker-1-pod-1')), `${ns}/protector`);
    expect(await podAlive(api('worker-1'), ns, 'worker-1-pod-1')).toBe(true);
  });

  it('W2: rejects bulk deletions (deletecollection in worker-1)', async () => {
    const ns = 'w2-collection';
    await w1Fixture(ns);
    const r = await refusal(
      api('worker-1').deleteCollectionNamespacedPod({
        namespace: ns,
        labelSelector: `podseidon-e2e/test=${ns}`,
      }),
    );
    expectRefused(r, `${ns}/protector`);
    const left = await api('worker-1').listNamespacedPod({ namespace: ns });
    const alive = left.items.filter((p) => !p.metadata?.deletionTimestamp);
    // 7 available, floor 5: at most two of worker-1's three pods may go
    expect(alive.length).toBeGreaterThanOrEqual(1);
    const p = await getProtector(custom, ns, 'protector');
    expect(p.status.summary.estimatedAvailableReplicas).toBeGreaterThanOrEqual(5);
  });
});
