// Points each cell's API server at the webhook: a ValidatingWebhookConfiguration for pods
// DELETE and pods/eviction CREATE, with this listener's URL (…/admission/<cellID>) and CA,
// sideEffects NoneOnDryRun, and Palisade's own pods left out. Do no harm: it matches only
// namespaces that hold a PodProtector (the label the leader keeps, namespaceLabels.ts), lets
// through deletions of pods already terminating (the kubelet's final delete, which Palisade
// would always admit) without calling anyone, and is registered with failurePolicy Ignore:
// the leader switches it to the configured policy (Fail) once a self-probe through the API
// server reached a replica (enforcement.ts). The probe is a second webhook of the same
// configuration, same address and CA, that matches only server-side dry-run deletions of
// Palisade's probe pod. Created or replaced, with the resourceVersion read just before, so a
// concurrent edit is never overwritten blindly; a replace keeps the failurePolicy in force.
import * as k8s from '@kubernetes/client-node';
import { PROTECTED_NAMESPACE_LABEL, PROTECTED_NAMESPACE_VALUE } from '../../lib/protection/namespaceLabel.js';
import type { FailurePolicy } from '../../lib/protection/enforcement.js';
import { RELEASE_ID, RELEASE_LABEL } from './updateTrigger.js';
import { codeOf, isConflict } from '../../lib/kube/errorText.js';

export const WEBHOOK_NAME = 'podseidon.kubewharf.io';

export { PROTECTED_NAMESPACE_LABEL, PROTECTED_NAMESPACE_VALUE };

/** The self-probe: a webhook of the same configuration that matches only dry runs on the probe pod. */
export const PROBE_WEBHOOK = 'self-probe.palisade.dev';
export const PROBE_LABEL = 'palisade.dev/webhook-probe';
export const PROBE_POD = 'palisade-webhook-probe';

export type { FailurePolicy };

/**
 * What the API server lets through without calling the webhook (CEL, kube-apiserver's
 * matchConditions): a DELETE of a pod that is already terminating — Palisade admits it
 * whatever its protectors say, and the kubelet's final delete (grace 0) of every pod is one.
 * Evictions are always reviewed (a terminating pod's eviction is admitted by the webhook).
 */
export const POD_MATCH_CONDITIONS: k8s.V1MatchCondition[] = [
  {
    name: 'not-already-terminating',
    expression: "request.operation != 'DELETE' || !has(oldObject.metadata.deletionTimestamp)",
  },
];

/** The self-probe's webhook sees only dry runs, so deleting the probe pod for real never waits on it. */
export const PROBE_MATCH_CONDITIONS: k8s.V1MatchCondition[] = [
  { name: 'dry-run-only', expression: 'has(request.dryRun) && request.dryRun == true' },
];

export function webhookConfiguration(
  url: string,
  caPem: string,
  failurePolicy: FailurePolicy = 'Ignore',
): k8s.V1ValidatingWebhookConfiguration {
  const clientConfig = { url, caBundle: Buffer.from(caPem).toString('base64') };
  const deletes: k8s.V1RuleWithOperations = {
    apiGroups: [''],
    apiVersions: ['v1'],
    operations: ['DELETE'],
    resources: ['pods'],
    scope: 'Namespaced',
  };
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: WEBHOOK_NAME, labels: { 'app.kubernetes.io/managed-by': 'palisade' } },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        sideEffects: 'NoneOnDryRun',
        failurePolicy,
        timeoutSeconds: 10,
        clientConfig,
        rules: [
          deletes,
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['pods/eviction'],
            scope: 'Namespaced',
          },
        ],
        namespaceSelector: { matchLabels: { [PROTECTED_NAMESPACE_LABEL]: PROTECTED_NAMESPACE_VALUE } },
        objectSelector: {
          matchExpressions: [{ key: RELEASE_LABEL, operator: 'NotIn', values: [RELEASE_ID] }],
        },
        matchConditions: POD_MATCH_CONDITIONS,
      },
      {
        name: PROBE_WEBHOOK,
        admissionReviewVersions: ['v1'],
        sideEffects: 'NoneOnDryRun',
        // only the probe's dry runs reach it: Fail brings the API server's reason back to the leader
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        clientConfig,
        rules: [deletes],
        objectSelector: { matchLabels: { [PROBE_LABEL]: 'true' } },
        matchConditions: PROBE_MATCH_CONDITIONS,
      },
    ],
  };
}

export async function registerWebhook(
  kc: k8s.KubeConfig,
  url: string,
  caPem: string,
  failurePolicy: FailurePolicy = 'Ignore',
) {
  await applyWebhookConfiguration(kc, webhookConfiguration(url, caPem, failurePolicy), {
    keepFailurePolicy: false,
  });
}

/** The failurePolicy of each named webhook of a configuration. */
const policiesOf = (c: k8s.V1ValidatingWebhookConfiguration | undefined) =>
  new Map((c?.webhooks ?? []).map((w) => [w.name, w.failurePolicy]));

/**
 * Create or replace a ValidatingWebhookConfiguration, conditional on the resourceVersion just
 * read. By default a replace keeps the failurePolicy each webhook has now: a replica that
 * starts (and registers) while a leader enforces must not switch enforcement off.
 */
export async function applyWebhookConfiguration(
  kc: k8s.KubeConfig,
  want: k8s.V1ValidatingWebhookConfiguration,
  o: { keepFailurePolicy?: boolean } = {},
) {
  const api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const name = want.metadata!.name!;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const current = await api.readValidatingWebhookConfiguration({ name });
      const body = structuredClone(want);
      body.metadata!.resourceVersion = current.metadata?.resourceVersion;
      if (o.keepFailurePolicy !== false) {
        const now = policiesOf(current);
        for (const w of body.webhooks ?? []) w.failurePolicy = now.get(w.name) ?? w.failurePolicy;
      }
      await api.replaceValidatingWebhookConfiguration({ name, body });
      return;
    } catch (e) {
      const code = codeOf(e);
      if (code === 409) continue;
      if (code !== 404) throw e;
    }
    try {
      const body = structuredClone(want);
      delete body.metadata!.resourceVersion;
      await api.createValidatingWebhookConfiguration({ body });
      return;
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
  throw new Error(`ValidatingWebhookConfiguration ${name}: kept conflicting with another writer`);
}
