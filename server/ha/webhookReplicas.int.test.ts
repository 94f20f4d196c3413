// Three Palisade replicas serve deletion protection's webhook behind one address (haproxy passing
// TLS through), on the embedded cluster and (PALISADE_CLUSTER=real) on kube-apiserver: they share
// one serving certificate and one registration, and when a replica stops (SIGTERM) or dies
// (SIGKILL) the API server keeps getting answers — no deletion fails because a replica went away.
// This is the layer-4 contrast: a request written on the killed replica's connection is lost
// with it. webhookRetries.int.test.ts fronts the replicas with haproxy in HTTP mode, which
// replays such a request on another replica: zero lost.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import {
  createFixturePods,
  createProtector,
  markReady,
  scenario,
} from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { type Replicas, startReplicas } from '../test/replicas.js';

const NS = 'ha';
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-webhook-'));
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;

const message = (e: unknown) => {
  const body = (e as { body?: unknown }).body;
  return typeof body === 'string' ? body : JSON.stringify(body ?? (e as Error).message);
};

describe.skipIf(!haproxyAvailable())('three replicas behind one webhook address', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-webhook'));
    await createReadyNamespace(cluster.core, NS);
    const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    // a protected workload at its floor: every deletion of its pods is refused
    await createProtector(custom, NS, 'web', { minAvailable: 3, selector: { app: 'web' } });
    await createFixturePods(cluster.core, NS, ['web-0', 'web-1', 'web-2'], { app: 'web' });
    for (const p of ['web-0', 'web-1', 'web-2'])
      await markReady(cluster.core, NS, p, new Date(Date.now() - 60_000));
    await createFixturePods(
      cluster.core,
      NS,
      Array.from({ length: 90 }, (_, i) => `free-${i}`),
      { app: 'free' },
    );
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kc.exportConfig());
    set = await startReplicas({ kubeconfig, n: 3 });
    // the webhook answers through the balancer once the protector is aggregated
    await eventually(
      async () => {
        const e = await cluster.core
          .deleteNamespacedPod({ namespace: NS, name: 'web-0', body: { dryRun: ['All'] } })
          .then(
            () => undefined,
            (x) => x,
          );
        return e && /reports too few available replicas/.test(message(e));
      },
      'the protected deletion refused through the balancer',
      60_000,
    );
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers one URL with one CA: the Secret every replica serves from', async () => {
    const vwc = await cluster.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    const secret = await cluster.core.readNamespacedSecret({
      namespace: 'kube-system',
      name: 'palisade-webhook-serving',
    });
    for (const w of vwc.webhooks ?? []) {
      expect(w.clientConfig.url?.startsWith(set.webhookUrl)).toBe(true);
      expect(w.clientConfig.caBundle).toBe(secret.data?.['ca.crt']);
    }
  });

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
