// Approving or cancelling a NodeFence needs the custom verbs `approve` / `cancel` on
// nodefences.palisade.dev, whichever client writes it: the console's guarded actions ask first,
// and this admission webhook (on Palisade's webhook listener, POST /fences/<cellID>) enforces
// it for kubectl and every other client. For a write that sets or changes the approval or the
// cancellation (lib/fencing/approvalAdmission.ts), it asks the cluster with a
// SubjectAccessReview for the requesting user — name, groups, uid and extra from the
// AdmissionReview — and refuses with kube-apiserver's own Forbidden wording. Anything it cannot
// judge is refused (failurePolicy Fail): an approval is never let through by an error.
import type * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import { forbiddenMessage } from '../../lib/auth/forbidden.js';
import { judgeFenceWrite } from '../../lib/fencing/approvalAdmission.js';
import { errorText } from '../../lib/kube/errorText.js';
import { reviewUserInfo, type UserAccess, userAccess } from '../kube/subjectAccess.js';
import { admissionAnswer, admissionReview, parseReview } from '../webhook/review.js';
import { POLICY_WEBHOOK_NAME, POLICY_WEBHOOK_PATH, policyWebhook } from './policyWebhook.js';

export const FENCE_WEBHOOK_NAME = 'nodefences.palisade.dev';
export const FENCE_WEBHOOK_CONFIG = 'palisade-nodefences';

/** The listener path segment (/<segment>/<cellID>) of each webhook in palisade-nodefences. */
export const FENCE_WEBHOOK_PATHS: Readonly<Record<string, 'fences' | typeof POLICY_WEBHOOK_PATH>> = {
  [FENCE_WEBHOOK_NAME]: 'fences',
  [POLICY_WEBHOOK_NAME]: POLICY_WEBHOOK_PATH,
};

const fenceObject = z.object({
  metadata: z.object({ name: z.string().optional() }).passthrough().optional(),
  spec: z.record(z.string(), z.unknown()).optional(),
});

const review = admissionReview(
  z.object({
    uid: z.string().min(1),
    operation: z.string(),
    name: z.string().optional(),
    userInfo: reviewUserInfo,
    object: fenceObject.nullish(),
    oldObject: fenceObject.nullish(),
  }),
);

/** Asks the cluster whether a user may do a verb on a NodeFence (Palisade's own credentials). */
export type FenceAccess = UserAccess<'approve' | 'cancel'>;

/** NodeFence approvals and cancellations: the verbs approve and cancel on palisade.dev nodefences */
export const subjectAccess = (kc: k8s.KubeConfig): FenceAccess =>
  userAccess(kc, { group: 'palisade.dev', resource: 'nodefences' });

function answer(uid: string, allowed: boolean, message = '', code = 403, reason = 'Forbidden') {
  return admissionAnswer(uid, allowed ? undefined : { code, reason, message });
}

/**
 * One review: [HTTP status, body]. Malformed: 400. A question the cluster would not answer (it is
 * down, or the SubjectAccessReview is invalid, e.g. for a request with no user and no group): a
 * refusal saying why, never an admission.
 */
export async function handleFenceReview(text: string, access: FenceAccess): Promise<[number, unknown]> {
  const parsed = parseReview(review, text);
  if (!parsed.ok) return parsed.answer;
  const req = parsed.review.request;
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return [200, answer(req.uid, true)];
  const name = req.name || req.object?.metadata?.name || '';
  const verdict = judgeFenceWrite({
    old: req.operation === 'UPDATE' ? (req.oldObject?.spec ?? {}) : undefined,
    new: req.object?.spec ?? {},
    username: req.userInfo.username,
  });
  if (verdict.kind === 'free') return [200, answer(req.uid, true)];
  if (verdict.kind === 'refused') return [200, answer(req.uid, false, verdict.message)];
  try {
    for (const verb of verdict.verbs) {
      const a = await access(req.userInfo, verb, name);
      if (!a.allowed) {
        const attrs = { verb, group: 'palisade.dev', resource: 'nodefences', name };
        return [200, answer(req.uid, false, forbiddenMessage(attrs, req.userInfo.username, a.reason))];
      }
    }
  } catch (e) {
    const why = `cannot ask the cluster whether ${JSON.stringify(req.userInfo.username)} may ${verdict.verbs.join('/')}: ${errorText(e)}`;
    return [200, answer(req.uid, false, why, 500, 'InternalError')];
  }
  return [200, answer(req.uid, true)];
}

/**
 * palisade-nodefences: NodeFence approvals (nodefences.palisade.dev) and FencePolicy writes
 * (fencepolicies.palisade.dev, server/fencing/policyWebhook.ts). Both get `url` here; the caller
 * points each at its path (FENCE_WEBHOOK_PATHS).
 */
export function fenceWebhookConfiguration(url: string, caPem: string): k8s.V1ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: FENCE_WEBHOOK_CONFIG, labels: { 'app.kubernetes.io/managed-by': 'palisade' } },
    webhooks: [
      {
        name: FENCE_WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [
          {
            apiGroups: ['palisade.dev'],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['nodefences'],
            scope: 'Cluster',
          },
        ],
      },
      policyWebhook(url, caPem),
    ],
  };
}
