// Tests that write FencePolicies as if the FencePolicy webhook were away (written before it
// existed, or while it was not registered): its entry taken out of palisade-nodefences, and put
// back. The leader writes the same configuration (its caBundle, its failurePolicy), so each change
// is made on a fresh read and made again after a 409.
import * as k8s from '@kubernetes/client-node';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { FENCE_WEBHOOK_CONFIG } from '../approvalWebhook.js';
import { POLICY_WEBHOOK_NAME } from '../policyWebhook.js';

type Hooks = k8s.V1ValidatingWebhook[];

async function rewrite(api: k8s.AdmissionregistrationV1Api, change: (hooks: Hooks) => Hooks) {
  await eventually(async () => {
    const now = await api.readValidatingWebhookConfiguration({ name: FENCE_WEBHOOK_CONFIG });
    return api
      .replaceValidatingWebhookConfiguration({
        name: FENCE_WEBHOOK_CONFIG,
        body: { ...now, webhooks: change(now.webhooks ?? []) },
      })
      .then(
        () => true,
        (e) => {
          if ((e as { code?: number }).code !== 409) throw e;
          return false;
        },
      );
  }, `${FENCE_WEBHOOK_CONFIG} rewritten`);
}

/** Take the FencePolicy webhook out; the function returned puts it back. */
export async function policyWebhookAway(kc: k8s.KubeConfig): Promise<() => Promise<void>> {
  const api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const config = await api.readValidatingWebhookConfiguration({ name: FENCE_WEBHOOK_CONFIG });
  const saved = config.webhooks?.find((w) => w.name === POLICY_WEBHOOK_NAME);
  const others = (hooks: Hooks) => hooks.filter((w) => w.name !== POLICY_WEBHOOK_NAME);
  await rewrite(api, others);
  return async () => {
    if (saved) await rewrite(api, (hooks) => [...others(hooks), saved]);
  };
}
