// SIGTERM's drain of a replica behind the webhook's Service (protection.webhook.service, in a pod:
// POD_NAME): the webhook keeps answering — new connections too, each answer closing its
// connection — until the pod is no longer a ready endpoint of the Service's EndpointSlices (and
// a moment for routing to follow), not merely until its drain bound; then it stops listening.
// Meanwhile it reports itself not ready.
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFromEnv, startEmbeddedCluster } from '../../../sim/cluster.js';
import { parseScenario } from '../../../sim/scenario/load.js';
import { freePort } from '../../../sim/real/controlPlane.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionService } from '../service.js';
import { scenario } from './protectionHarness.js';
import { startProtectionAlone } from './standalone.js';

const SERVICE = { namespace: 'palisade-drain', name: 'palisade-webhook' };
const POD = 'palisade-7d9f-x2x2q';
let cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>;
let protection: ProtectionService;
let port: number;
let discovery: k8s.DiscoveryV1Api;

beforeAll(async () => {
  port = await freePort();
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(scenario('webhook-drain'), 'test'),
    backend: backendFromEnv(),
  });
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await createReadyNamespace(core, SERVICE.namespace);
  discovery = cluster.kc.makeApiClient(k8s.DiscoveryV1Api);
  await discovery.createNamespacedEndpointSlice({
    namespace: SERVICE.namespace,
    body: {
      metadata: { name: 'palisade-webhook-abcde', labels: { 'kubernetes.io/service-name': SERVICE.name } },
      addressType: 'IPv4',
      ports: [{ name: 'webhook', port: 8443, protocol: 'TCP' }],
      endpoints: [
        {
          addresses: ['10.244.1.7'],
          conditions: { ready: true, serving: true, terminating: false },
          targetRef: { kind: 'Pod', namespace: SERVICE.namespace, name: POD, uid: 'u-1' },
        },
      ],
    },
  });
  process.env.POD_NAME = POD;
  protection = await startProtectionAlone({
    config: {
      webhook: {
        port,
        host: '127.0.0.1',
        register: false,
        service: SERVICE,
        clientAuth: { required: false },
        // the bound, far away: the drain must end because the endpoints went
        drainTimeout: 60_000,
      },
      aggregator: { updateTrigger: { enabled: false } },
      generator: { enabled: false },
    },
    // the cluster's admin: the serving Secret goes beside the Service, outside the namespace the
    // test's chart identity is rendered for (webhookService.int.test.ts does the same)
    clusters: [{ id: 'c', context: 'drain-cell', kc: cluster.kc }],
  });
  delete process.env.POD_NAME;
}, 120_000);
afterAll(async () => {
  await protection?.stop();
  await cluster?.stop();
});

/** A review straight to this replica's port (a new connection each time), as the Service routes one. */
function review(): Promise<{ status: number; connection?: string } | { error: string }> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `drain-${Math.random()}`,
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'DELETE',
      namespace: 'elsewhere',
      name: 'p',
      oldObject: { metadata: { name: 'p', namespace: 'elsewhere' } },
    },
  });
  return new Promise((resolve) => {
    const req = https.request(
      `https://127.0.0.1:${port}/admission/drain-cell`,
      {
        method: 'POST',
        ca: protection.webhook.caPem,
        agent: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      },
    );
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(body);
  });
}

const setReady = (ready: boolean) =>
  discovery.patchNamespacedEndpointSlice(
    {
      namespace: SERVICE.namespace,
      name: 'palisade-webhook-abcde',
      body: {
        endpoints: [
          {
            addresses: ['10.244.1.7'],
            conditions: { ready, serving: true, terminating: !ready },
            targetRef: { kind: 'Pod', namespace: SERVICE.namespace, name: POD, uid: 'u-1' },
          },
        ],
      },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );

describe('SIGTERM behind a Service: the drain follows the endpoints', () => {
  it('keeps answering new connections, closing each, while the pod is a ready endpoint', async () => {
    expect(await review()).toMatchObject({ status: 200 });
    const drained = protection.drain();
    let done = false;
    void drained.then(() => (done = true));
    expect(protection.notReady()).toContain('the webhook is draining (stopping)');
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 300));
      expect(await review()).toEqual({ status: 200, connection: 'close' });
    }
    expect(done).toBe(false);
    // the endpoints controller marks the terminating pod not ready: the drain ends soon after
    const at = Date.now();
    await setReady(false);
    await drained;
    expect(Date.now() - at).toBeLessThan(10_000);
    expect(await review()).toEqual({ error: 'ECONNREFUSED' });
  }, 60_000);
});
