// Points each cell's API server at the webhook: a ValidatingWebhookConfiguration for pods
// DELETE and pods/eviction CREATE, with this listener's URL (…/admission/<cellID>) and CA,
// failurePolicy Fail (a webhook that is down keeps protected pods), sideEffects
// NoneOnDryRun, and Palisade's own pods left out. Created or replaced, with the
// resourceVersion read just before, so a concurrent edit is never overwritten blindly.
import * as k8s from '@kubernetes/client-node';
import { RELEASE_ID, RELEASE_LABEL } from './updateTrigger.js';

export const WEBHOOK_NAME = 'podseidon.kubewharf.io';

export function webhookConfiguration(url: string, caPem: string): k8s.V1ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: WEBHOOK_NAME, labels: { 'app.kubernetes.io/managed-by': 'palisade' } },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        sideEffects: 'NoneOnDryRun',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['DELETE'],
            resources: ['pods'],
            scope: 'Namespaced',
          },
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['pods/eviction'],
            scope: 'Namespaced',
          },
        ],
        objectSelector: {
          matchExpressions: [{ key: RELEASE_LABEL, operator: 'NotIn', values: [RELEASE_ID] }],
        },
      },
    ],
  };
}

export async function registerWebhook(kc: k8s.KubeConfig, url: string, caPem: string) {
  await applyWebhookConfiguration(kc, webhookConfiguration(url, caPem));
}

/** Create or replace a ValidatingWebhookConfiguration, conditional on the resourceVersion just read. */
export async function applyWebhookConfiguration(
  kc: k8s.KubeConfig,
  want: k8s.V1ValidatingWebhookConfiguration,
) {
  const api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const name = want.metadata!.name!;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const current = await api.readValidatingWebhookConfiguration({ name });
      want.metadata!.resourceVersion = current.metadata?.resourceVersion;
      await api.replaceValidatingWebhookConfiguration({ name, body: want });
      return;
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code === 409) continue;
      if (code !== 404) throw e;
    }
    try {
      delete want.metadata!.resourceVersion;
      await api.createValidatingWebhookConfiguration({ body: want });
      return;
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }
  throw new Error(`ValidatingWebhookConfiguration ${name}: kept conflicting with another writer`);
}
