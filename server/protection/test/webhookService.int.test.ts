// protection.webhook.service: the webhook configurations call a Service (clientConfig.service,
// paths /admission/<cell>, /fences/<cell>, /epochs/<cell>) and the self-managed serving
// certificate, in a Secret beside the Service, names <name>.<namespace>.svc and
// .svc.cluster.local. On the embedded back end the API server reaches the Service (its
// serviceHosts), so a protected deletion is refused through it — the API server verifying the
// certificate for the Service's name against the caBundle.
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFromEnv, startEmbeddedCluster } from '../../../sim/cluster.js';
import { parseScenario } from '../../../sim/scenario/load.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { freePort } from '../../../sim/real/controlPlane.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionService } from '../service.js';
import { createFixturePods, createProtector, markReady, scenario } from './protectionHarness.js';
import { startProtectionAlone } from './standalone.js';

const SERVICE = { namespace: 'palisade', name: 'palisade-webhook' };
const HOST = 'palisade-webhook.palisade.svc';
const NS = 'svc-guarded';
let cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>;
let core: k8s.CoreV1Api;
let protection: ProtectionService;
const embedded = backendFromEnv() === 'embedded';

beforeAll(async () => {
  const port = await freePort();
  cluster = await startEmbeddedCluster({
    scenario: parseScenario(scenario('webhook-service'), 'test'),
    backend: backendFromEnv(),
    serviceHosts: { [HOST]: `127.0.0.1:${port}` },
  });
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await createReadyNamespace(core, SERVICE.namespace);
  await createReadyNamespace(core, NS);
  protection = await startProtectionAlone({
    config: {
      webhook: { port, host: '127.0.0.1', register: true, service: SERVICE, clientAuth: { required: false } },
      aggregator: { updateTrigger: { enabled: false } },
    },
    clusters: [{ id: 'c', context: 'svc-cell', kc: cluster.kc }],
  });
}, 120_000);
afterAll(async () => {
  await protection?.stop();
  await cluster?.stop();
});

describe('the webhook behind a Service', () => {
  it("registers clientConfig.service with each path and the Secret's CA", async () => {
    const secret = await core.readNamespacedSecret({
      namespace: SERVICE.namespace,
      name: 'palisade-webhook-serving',
    });
    const api = cluster.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    // by webhook: palisade-nodefences holds two, each on its own path
    const paths: Record<string, Record<string, string>> = {
      // the self-probe webhook answers on the admission path too (dry-run deletions only)
      'podseidon.kubewharf.io': {
        'podseidon.kubewharf.io': '/admission/svc-cell',
        'self-probe.palisade.dev': '/admission/svc-cell',
      },
      'palisade-nodefences': {
        'nodefences.palisade.dev': '/fences/svc-cell',
        'fencepolicies.palisade.dev': '/fencepolicies/svc-cell',
      },
      'palisade-leader-epochs': {},
    };
    for (const [name, byWebhook] of Object.entries(paths)) {
      const c = await api.readValidatingWebhookConfiguration({ name });
      for (const w of c.webhooks ?? []) {
        expect(w.clientConfig).toEqual({
          service: { ...SERVICE, port: 443, path: byWebhook[w.name] ?? '/epochs/svc-cell' },
          caBundle: secret.data?.['ca.crt'],
        });
      }
      expect((c.webhooks ?? []).map((w) => w.name).filter((n) => byWebhook[n])).toEqual(
        Object.keys(byWebhook),
      );
    }
    const cert = new X509Certificate(Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64'));
    expect(cert.checkHost(HOST)).toBeTruthy();
    expect(cert.checkHost(`${HOST}.cluster.local`)).toBeTruthy();
    expect(protection.certificates).toMatchObject({
      mode: 'self-managed',
      secret: 'palisade/palisade-webhook-serving',
    });
    expect(protection.notReady()).toEqual([]);
  });

  it.skipIf(!embedded)('judges a deletion the API server sends through the Service', async () => {
    await createProtector(cluster.kc.makeApiClient(k8s.CustomObjectsApi), NS, 'web', {
      minAvailable: 2,
      selector: { app: 'web' },
    });
    await createFixturePods(core, NS, ['web-0', 'web-1'], { app: 'web' });
    for (const p of ['web-0', 'web-1']) await markReady(core, NS, p, new Date(Date.now() - 60_000));
    await eventually(
      async () => {
        const e = await core.deleteNamespacedPod({ namespace: NS, name: 'web-0' }).then(
          () => undefined,
          (x) => x,
        );
        return e && /reports too few available replicas/.test(JSON.stringify((e as { body?: unknown }).body));
      },
      'the deletion refused through the Service',
      30_000,
    );
  });
});
