// Differential: the client certificate an API server presents to an admission webhook when
// its --admission-control-config-file names one (AdmissionConfiguration ->
// WebhookAdmissionConfiguration.kubeConfigFile -> user "*"), on the embedded API server and on
// kube-apiserver v1.34.10 started from the same files and the same CA.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { WEBHOOK_CLIENT_CN, writeWebhookClientConfig } from '../apiserver/admission/clientCertificate.js';
import { eventually } from '../apiserver/test/harness.js';
import { type TestWebhook, startWebhook } from '../apiserver/test/webhookServer.js';
import { type Backends, call, onBoth, startBackends } from './backends.js';
import { namespace } from './scenario.js';

let bs: Backends;
let hook: TestWebhook;
let dir: string;
let ca: CertificateAuthority;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-webhook-client-'));
  ca = await createCertificateAuthority('palisade-diff-ca');
  const files = await writeWebhookClientConfig(dir, ca);
  hook = await startWebhook(['127.0.0.1'], ca.certPem);
  bs = await startBackends({ ca, admissionControlConfigFile: files.admissionConfigFile });
}, 120_000);
afterAll(async () => {
  await bs?.stop();
  await hook?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('webhook client certificate', () => {
  it('both present CN=kube-apiserver-webhook-client, signed by the cluster CA', async () => {
    await onBoth(bs, async (b) => {
      await namespace(b, 'diff-whcert');
      const created = await call(
        b,
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          metadata: { name: 'whcert' },
          webhooks: [
            {
              name: 'whcert.palisade.test',
              clientConfig: { url: `${hook.url}/${b.name}`, caBundle: hook.caBundle },
              rules: [
                { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
              ],
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'diff-whcert' } },
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              failurePolicy: 'Fail',
            },
          ],
        },
      );
      expect(created.code).toBe(201);
      // the real server's webhook configuration cache catches up a moment later
      await eventually(async () => {
        const r = await call(b, 'POST', '/api/v1/namespaces/diff-whcert/configmaps', {
          metadata: { generateName: 'cm-' },
        });
        return r.code === 201 && hook.reviews.some((x) => x.path.startsWith(`/${b.name}`));
      }, `${b.name}: the webhook is called`);
    });
    for (const name of ['embedded', 'real']) {
      const calls = hook.reviews.filter((r) => r.path.startsWith(`/${name}`));
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) expect(c.client).toEqual({ cn: WEBHOOK_CLIENT_CN, verified: true });
    }
  });
});
