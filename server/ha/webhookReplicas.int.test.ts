import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { scenario } from '../protection/test/protectionHarness.js';
import type { Replicas } from '../test/replicas.js';
import { expectOneRegistration, message, replicasGuardingAFloor } from './fixture.js';

const NS = 'ha';
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-webhook-'));
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;

describe.skipIf(!haproxyAvailable())('three replicas behind one webhook address', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-webhook'));
    set = await replicasGuardingAFloor(cluster, { namespace: NS, free: 90, dir });
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers one URL with one CA: the Secret every replica serves from', () =>
    expectOneRegistration(cluster, set));

  /** Delete the next free pods one after another; the failures that name the webhook. */
  let next = 0;
  async function deleteFree(count: number) {
    const failures: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `free-${next++}`;
      await cluster.core
        .deleteNamespacedPod({ namespace: NS, name, body: { gracePeriodSeconds: 0 } })
        .catch((e) => {
          failures.push(`${name}: ${message(e)}`);
        });
    }
    return failures;
  }

  it('a replica that stops (SIGTERM): every deletion still gets an answer', async () => {
    expect(await deleteFree(10)).toEqual([]);
    set.replicas[0].signal('SIGTERM');
    const during = await deleteFree(20);
    await set.replicas[0].exited;
    expect([...during, ...(await deleteFree(10))]).toEqual([]);
  }, 60_000);

  it('a replica that dies (SIGKILL): only what it held in flight is lost, then every deletion is answered', async () => {
    set.replicas[1].signal('SIGKILL');
    // kube-apiserver does not retry a webhook POST whose connection died under it, so a request
    // on the killed replica's connection at that moment fails; say how many, and that nothing else does
    const during = await deleteFree(20);
    console.log(`SIGKILL: ${during.length} of 20 deletions lost with the killed replica's connection`);
    if (during.length > 2)
      console.log(
        'replicas:',
        set.replicas.map((r) => ({ i: r.index, exit: r.child.exitCode, signal: r.child.signalCode })),
        await set.balancer.servers(),
        during.slice(0, 2),
      );
    for (const f of during)
      expect(f).toMatch(
        /failed calling webhook .*(EOF|connection reset|broken pipe|socket hang up|socket disconnected)/,
      );
    expect(during.length).toBeLessThanOrEqual(2);
    await set.replicas[1].exited;
    expect(await deleteFree(10)).toEqual([]);
    // and the one left still judges: the protected pod stays
    const refused = await cluster.core.deleteNamespacedPod({ namespace: NS, name: 'web-1' }).then(
      () => undefined,
      (x) => x,
    );
    expect(message(refused)).toMatch(/reports too few available replicas/);
  }, 60_000);
});
