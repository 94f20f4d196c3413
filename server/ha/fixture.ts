// What the replicated-webhook tests share: a workload protected at its floor (every deletion of
// its pods refused) beside free pods to delete, replicas started behind one address and
// judging through it, and the text of a refused request.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { startScenario } from '../../sim/test/clusterHarness.js';
import { createFixturePods, createProtector, markReady } from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { type Replicas, startReplicas } from '../test/replicas.js';

type Cluster = Awaited<ReturnType<typeof startScenario>>;

/** The API server's answer to a refused request, as text. */
export const message = (e: unknown) => {
  const body = (e as { body?: unknown }).body;
  return typeof body === 'string' ? body : JSON.stringify(body ?? (e as Error).message);
};

/**
 * web-0..2 at their protector's floor, `free` pods `free-<i>` unprotected; then `n` replicas
 * behind one address, returned once a protected deletion is refused through it.
 */
export async function replicasGuardingAFloor(
  cluster: Cluster,
  o: {
    namespace: string;
    free: number;
    dir: string;
    balancer?: 'tcp' | 'http';
    /** tcp, routed like a Service (the test moves replicas in and out of rotation) */
    endpoints?: boolean;
    /** more palisade.yaml protection keys for every replica */
    protection?: Record<string, unknown>;
  },
): Promise<Replicas> {
  const ns = o.namespace;
  await createReadyNamespace(cluster.core, ns);
  const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  await createProtector(custom, ns, 'web', { minAvailable: 3, selector: { app: 'web' } });
  await createFixturePods(cluster.core, ns, ['web-0', 'web-1', 'web-2'], { app: 'web' });
  for (const p of ['web-0', 'web-1', 'web-2'])
    await markReady(cluster.core, ns, p, new Date(Date.now() - 60_000));
  await createFixturePods(
    cluster.core,
    ns,
    Array.from({ length: o.free }, (_, i) => `free-${i}`),
    { app: 'free' },
  );
  const kubeconfig = join(o.dir, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kc.exportConfig());
  const set = await startReplicas({
    kubeconfig,
    n: 3,
    balancer: o.balancer,
    endpoints: o.endpoints,
    protection: o.protection,
  });
  await untilRefusedThroughBalancer(cluster, ns);
  return set;
}

/** Until a (dry-run) deletion of the protected web-0 is refused: the replicas judge through the balancer. */
export async function untilRefusedThroughBalancer(cluster: Cluster, ns: string) {
  await eventually(
    async () => {
      const e = await cluster.core
        .deleteNamespacedPod({ namespace: ns, name: 'web-0', body: { dryRun: ['All'] } })
        .then(
          () => undefined,
          (x) => x,
        );
      return e && /reports too few available replicas/.test(message(e));
    },
    'the protected deletion refused through the balancer',
    60_000,
  );
}

/** Every registered webhook calls the one address, with the CA of the Secret every replica serves from. */
export async function expectOneRegistration(cluster: Cluster, set: Replicas) {
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
}
