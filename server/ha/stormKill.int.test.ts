// The leader killed (SIGKILL) in the middle of a deletion storm, on both back ends: three
// replicas behind one webhook address (haproxy ending TLS and replaying a dead replica's
// requests: server/ha/webhookRetries.int.test.ts), 20 ready pods of a workload that must keep 10. Every
// replica's webhook admits deletions and writes admission buckets; the leader's aggregator folds
// them into the protector's counts. Killing the leader mid-storm takes its webhook and its
// aggregator at once. No failed admission: every deletion is answered, admitted or refused at
// the floor. No over-admission: at no point do fewer than 10 pods remain; no lost
// bucket: once the new leader has aggregated, the protector's estimate is exactly what is left,
// and deletion goes on being admitted until the floor (not stuck on a dead replica's reservation).
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import {
  createFixturePods,
  createProtector,
  getProtector,
  markReady,
  scenario,
} from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { message } from './fixture.js';
import { type Replicas, startReplicas } from '../test/replicas.js';

const FLOOR = 10;
const PODS = Array.from({ length: 20 }, (_, i) => `web-${i}`);
const LEASE = { namespace: 'kube-system', name: 'palisade-controller' };
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-storm-'));
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;

/** each try of the test (CI retries a failed one) storms a namespace of its own: storm-1, storm-2 */
let tries = 0;

/** 20 ready pods under a protector that keeps 10, aggregated by the leader */
async function stormFixture(ns: string) {
  await createReadyNamespace(cluster.core, ns);
  const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  await createProtector(custom, ns, 'web', { minAvailable: FLOOR, selector: { app: 'web' } });
  await createFixturePods(cluster.core, ns, PODS, { app: 'web' });
  for (const p of PODS) await markReady(cluster.core, ns, p, new Date(Date.now() - 60_000));
  await eventually(
    async () =>
      (await getProtector(custom, ns, 'web'))?.status?.summary?.estimatedAvailableReplicas === PODS.length,
    'the protector aggregated',
    60_000,
  );
}

const remaining = async (ns: string) =>
  (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  ).length;

describe.skipIf(!haproxyAvailable())('the leader killed mid-storm', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-storm'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kc.exportConfig());
    set = await startReplicas({
      kubeconfig,
      n: 3,
      balancer: 'http',
      config: {
        controllers: { leaderElection: { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '500ms' } },
      },
    });
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('admits no deletion below the floor, loses no bucket, and goes on admitting', async () => {
    const NS = `storm-${++tries}`;
    await stormFixture(NS);
    const holder = (await cluster.kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease(LEASE)).spec
      ?.holderIdentity;
    const leader = set.replicas.find((r) => holder?.includes(`_${r.child.pid}_`))!;
    expect(leader).toBeDefined();
    const admitted: string[] = [];
    const lost: string[] = [];
    let lowest = PODS.length;
    let killed = false;
    // four workers delete all 20 at once; the leader dies after the third admission
    const queue = [...PODS];
    const worker = async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        await cluster.core.deleteNamespacedPod({ namespace: NS, name, body: { gracePeriodSeconds: 0 } }).then(
          () => admitted.push(name),
          (e) => {
            const m = message(e);
            if (!m.includes(`PodProtector ${NS}/web`)) lost.push(`${name}: ${m}`);
          },
        );
        if (!killed && admitted.length >= 3) {
          killed = true;
          leader.signal('SIGKILL');
        }
        lowest = Math.min(lowest, await remaining(NS));
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(killed).toBe(true);
    console.log(
      `storm: ${admitted.length} admitted, ${PODS.length - admitted.length - lost.length} refused at the floor, ${lost.length} failed`,
    );
    // the balancer replays what the killed replica held: no deletion fails for its death
    if (lost.length)
      console.log(
        `balancer after the storm: ${(await set.balancer.servers()).join('; ')}; ${JSON.stringify(await set.balancer.stats())}`,
      );
    expect(lost).toEqual([]);
    expect(lowest).toBeGreaterThanOrEqual(FLOOR);

    // a new leader aggregates; deletions go on being admitted down to the floor, never past it
    const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    await eventually(
      async () => {
        for (const p of (await cluster.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=web' }))
          .items)
          await cluster.core
            .deleteNamespacedPod({ namespace: NS, name: p.metadata!.name!, body: { gracePeriodSeconds: 0 } })
            .catch(() => undefined);
        const left = await remaining(NS);
        expect(left).toBeGreaterThanOrEqual(FLOOR);
        const s = (await getProtector(custom, NS, 'web'))?.status;
        return left === FLOOR && s?.summary?.estimatedAvailableReplicas === FLOOR;
      },
      'exactly the floor left, and the protector says so',
      60_000,
    );
    expect(await remaining(NS)).toBe(FLOOR);
  }, 240_000);
});
