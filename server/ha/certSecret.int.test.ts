// The webhook's Secret in its other two uses, on both back ends:
// - cert-manager mode: the Secret is written by someone else (here the test, as cert-manager
//   would); every replica serves what it holds and reloads when it changes, during a storm of
//   deletions with no failed admission, and Palisade writes neither the Secret nor any caBundle;
//   a console whose Secret does not exist yet says so on /readyz (503) until it does;
// - register: false with self-managed certificates: Palisade creates no webhook configuration;
//   it patches only the caBundle of the ones that exist (made here, as the chart would), says
//   which are missing, and patches one made later.
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { webhookConfiguration } from '../protection/register.js';
import {
  createFixturePods,
  createProtector,
  markReady,
  scenario,
} from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { type Replicas, startReplicas } from '../test/replicas.js';
import { served } from './certProbe.js';
import { message } from './fixture.js';

const NS = 'cert-secret';
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-cert-secret-'));
const kubeconfig = join(dir, 'kubeconfig');
let cluster: Awaited<ReturnType<typeof startScenario>>;
let cell: string;

const admissions = () => cluster.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const refusedThrough = async () => {
  const e = await cluster.core
    .deleteNamespacedPod({ namespace: NS, name: 'web-0', body: { dryRun: ['All'] } })
    .then(
      () => undefined,
      (x) => x,
    );
  return e !== undefined && /reports too few available replicas/.test(message(e));
};
/** the chart's configuration: the webhook through the balancer, caBundle as given */
const chartConfiguration = (set: Replicas, caPem: string | undefined) => {
  const c = webhookConfiguration(`${set.webhookUrl}/admission/${encodeURIComponent(cell)}`, caPem ?? '');
  if (!caPem) delete c.webhooks![0].clientConfig.caBundle;
  c.metadata!.labels = { 'app.kubernetes.io/managed-by': 'Helm' };
  c.webhooks![0].namespaceSelector = {
    matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [NS] }],
  };
  return c;
};

async function writeTlsSecret(
  name: string,
  ca: CertificateAuthority,
  leaf: { certPem: string; keyPem: string },
) {
  const body = {
    metadata: { name },
    type: 'kubernetes.io/tls',
    data: { 'ca.crt': b64(ca.certPem), 'tls.crt': b64(leaf.certPem), 'tls.key': b64(leaf.keyPem) },
  };
  const core = cluster.core;
  const current = await core.readNamespacedSecret({ namespace: 'kube-system', name }).catch(() => undefined);
  return current
    ? core.replaceNamespacedSecret({
        namespace: 'kube-system',
        name,
        body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } },
      })
    : core.createNamespacedSecret({ namespace: 'kube-system', body });
}

describe.skipIf(!haproxyAvailable())('the webhook Secret: cert-manager, and register: false', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-cert-secret'));
    cell = cluster.kc.getCurrentContext();
    await createReadyNamespace(cluster.core, NS);
    await createProtector(cluster.kc.makeApiClient(k8s.CustomObjectsApi), NS, 'web', {
      minAvailable: 3,
      selector: { app: 'web' },
    });
    await createFixturePods(cluster.core, NS, ['web-0', 'web-1', 'web-2', 'free-0'], { app: 'web' });
    for (const p of ['web-0', 'web-1', 'web-2'])
      await markReady(cluster.core, NS, p, new Date(Date.now() - 60_000));
    await writeFile(kubeconfig, cluster.kc.exportConfig());
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cert-manager, no Secret yet: /readyz is 503 naming it, then ready once it is written', async () => {
    const secret = { namespace: 'kube-system', name: 'palisade-webhook-late' };
    const c = await startConsole({
      clusters: await clustersFromKubeconfig(kubeconfig),
      ui: false,
      fencing: false,
      protection: {
        webhook: {
          port: 0,
          host: '127.0.0.1',
          register: false,
          clientAuth: { required: false },
          certificates: { mode: 'cert-manager', secret },
        },
        aggregator: { updateTrigger: { enabled: false } },
      },
    });
    try {
      const readyz = async () => {
        const r = await fetch(`${c.url}/readyz`);
        return { status: r.status, text: await r.text() };
      };
      // once the Secret's watch has synced (until then /readyz says that too), the one reason
      // left is the missing certificate, and it stays 503 until the Secret is written
      const missing =
        'not ready: the webhook has no serving certificate yet (Secret kube-system/palisade-webhook-late, cert-manager)\n';
      await eventually(async () => (await readyz()).text === missing, 'readyz about the certificate only');
      expect(await readyz()).toEqual({ status: 503, text: missing });
      const ca = await createCertificateAuthority('cert-manager-ca');
      const leaf = await ca.issueServing('palisade-webhook', ['localhost', '127.0.0.1']);
      await writeTlsSecret(secret.name, ca, leaf);
      await eventually(
        async () => (await readyz()).status === 200,
        '/readyz 200 once the Secret is written',
        30_000,
      );
      expect((await served(c.protection!.webhook.port, ca.certPem)).fingerprint).toBe(
        new X509Certificate(leaf.certPem).fingerprint256,
      );
    } finally {
      await c.stop();
    }
  });

  describe('cert-manager mode', () => {
    // the chart's name in both modes: the chart's ServiceAccount may read no other
    const SECRET = 'palisade-webhook-serving';
    let set: Replicas;
    let ca: CertificateAuthority;
    beforeAll(async () => {
      ca = await createCertificateAuthority('cert-manager-ca');
      await writeTlsSecret(SECRET, ca, await ca.issueServing('palisade-webhook', ['localhost', '127.0.0.1']));
      set = await startReplicas({
        kubeconfig,
        n: 3,
        protection: {
          webhook: {
            register: false,
            certificates: { mode: 'cert-manager', secret: { namespace: 'kube-system', name: SECRET } },
          },
        },
      });
      // what the chart and cainjector make
      await admissions().createValidatingWebhookConfiguration({ body: chartConfiguration(set, ca.certPem) });
      await eventually(refusedThrough, 'the protected deletion refused through the balancer', 60_000);
    }, 180_000);
    afterAll(async () => {
      await set?.stop();
      await admissions()
        .deleteValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' })
        .catch(() => undefined);
    });

    it('a new certificate in the Secret: every replica serves it, no admission fails meanwhile, Palisade writes nothing', async () => {
      const before = await admissions().readValidatingWebhookConfiguration({
        name: 'podseidon.kubewharf.io',
      });
      const leaf = await ca.issueServing('palisade-webhook', ['localhost', '127.0.0.1']);
      const want = new X509Certificate(leaf.certPem).fingerprint256;
      const failures: string[] = [];
      let answered = 0;
      let storming = true;
      const storm = (async () => {
        while (storming) {
          const e = await cluster.core
            .deleteNamespacedPod({ namespace: NS, name: 'web-0', body: { dryRun: ['All'] } })
            .then(
              () => new Error('a protected deletion was admitted'),
              (x) => x,
            );
          if (/reports too few available replicas/.test(message(e))) answered++;
          else failures.push(message(e));
        }
      })();
      const written = await writeTlsSecret(SECRET, ca, leaf);
      try {
        await eventually(
          async () =>
            (await Promise.all(set.replicas.map((r) => served(r.webhookPort, ca.certPem)))).every(
              (s) => s.fingerprint === want,
            ),
          'every replica serving the new certificate',
          30_000,
        );
      } finally {
        storming = false;
        await storm;
      }
      console.log(
        `cert-manager reload: ${answered} refusals answered during the change, ${failures.length} failed`,
      );
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(0);
      // nothing written by Palisade: not the Secret, not the caBundle (the configuration itself may
      // change meanwhile: the leader's enforcement loop writes its failurePolicy and annotation)
      const after = await admissions().readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
      const bundles = (c: k8s.V1ValidatingWebhookConfiguration) =>
        (c.webhooks ?? []).map((w) => w.clientConfig.caBundle);
      expect(bundles(after)).toEqual(bundles(before));
      expect(new Set(bundles(after))).toEqual(new Set([b64(ca.certPem)]));
      const secret = await cluster.core.readNamespacedSecret({ namespace: 'kube-system', name: SECRET });
      expect(secret.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      for (const r of set.replicas)
        expect(r.output()).toContain('serving certificate loaded from the Secret');
    });
  });

  describe('register: false, self-managed', () => {
    let set: Replicas;
    beforeAll(async () => {
      // not the cert-manager test's Secret: the leader makes its own
      await cluster.core
        .deleteNamespacedSecret({ namespace: 'kube-system', name: 'palisade-webhook-serving' })
        .catch(() => undefined);
      set = await startReplicas({ kubeconfig, n: 3, protection: { webhook: { register: false } } });
    }, 180_000);
    afterAll(async () => {
      await set?.stop();
    });

    it('creates no configuration, says which are missing, and patches only the caBundle of one made later', async () => {
      const toldMissing = () =>
        set.replicas.some((r) =>
          r
            .output()
            .split('\n')
            .some(
              (l) => l.includes('webhook configuration not found') && l.includes('/podseidon.kubewharf.io'),
            ),
        );
      await eventually(toldMissing, 'a replica saying the configuration is missing', 30_000).catch((e) => {
        console.log(
          set.replicas
            .map((r) =>
              r
                .output()
                .split('\n')
                .filter((l) => /certificates|runtime/.test(l))
                .join('\n'),
            )
            .join('\n---\n'),
        );
        throw e;
      });
      const list = await admissions().listValidatingWebhookConfiguration();
      expect(list.items.map((c) => c.metadata?.name)).toEqual([]);
      // the chart's configuration, with no caBundle
      const made = await admissions().createValidatingWebhookConfiguration({
        body: chartConfiguration(set, undefined),
      });
      const caPem = async () =>
        (
          await cluster.core.readNamespacedSecret({
            namespace: 'kube-system',
            name: 'palisade-webhook-serving',
          })
        ).data?.['ca.crt'];
      const patched = await eventually(
        async () => {
          const c = await admissions().readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
          return c.webhooks?.[0].clientConfig.caBundle === (await caPem()) && c;
        },
        'the caBundle patched to the Secret',
        30_000,
      );
      // only caBundle changed
      const strip = (c: k8s.V1ValidatingWebhookConfiguration) => ({
        labels: c.metadata?.labels,
        webhooks: c.webhooks?.map((w) => ({
          ...w,
          clientConfig: { ...w.clientConfig, caBundle: undefined },
        })),
      });
      expect(strip(patched)).toEqual(strip(made));
      await eventually(
        refusedThrough,
        'the protected deletion refused through the patched configuration',
        30_000,
      );
      // and still none of its own
      expect(
        (await admissions().listValidatingWebhookConfiguration()).items.map((c) => c.metadata?.name),
      ).toEqual(['podseidon.kubewharf.io']);
    }, 90_000);
  });
});
