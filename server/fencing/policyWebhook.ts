// The FencePolicy admission webhook (fencepolicies.palisade.dev, POST /fencepolicies/<cellID> on
// Palisade's webhook listener, the second webhook of the palisade-nodefences configuration,
// failurePolicy Fail). A FencePolicy tells Palisade which program to run with which credentials,
// so every CREATE and UPDATE is judged (lib/fencing/policyAdmission.ts): a spec change must be a
// valid policy whose exec agent the agent rule allows (refused naming the field and parameter);
// pausing or resuming needs the custom verb `pause`, any other change and every CREATE the verb
// `configure`, asked of the cluster by SubjectAccessReview for the requesting user (name,
// groups, uid, extra from the AdmissionReview), except Palisade itself. What it cannot judge is
// refused: a 500 answer, which failurePolicy Fail turns into a refusal.
import * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import { forbiddenMessage } from '../../lib/auth/forbidden.js';
import { judgePolicyWrite, type PolicyVerb } from '../../lib/fencing/policyAdmission.js';
import { GROUP, POLICY_PLURAL } from '../../lib/fencing/types.js';
import { errorText } from '../../lib/kube/errorText.js';
import { type ReviewUser, reviewUserInfo, userAccess } from '../kube/subjectAccess.js';
import { admissionAnswer, admissionReview, parseReview, type Refusal } from '../webhook/review.js';

export const POLICY_WEBHOOK_NAME = 'fencepolicies.palisade.dev';
/** the listener's path segment: POST /fencepolicies/<cellID> */
export const POLICY_WEBHOOK_PATH = 'fencepolicies';

const policyObject = z.object({
  metadata: z
    .object({
      name: z.string().optional(),
      annotations: z.record(z.string(), z.string()).nullish(),
    })
    .passthrough()
    .optional(),
  spec: z.unknown().optional(),
});

const review = admissionReview(
  z.object({
    uid: z.string().min(1),
    operation: z.string(),
    name: z.string().optional(),
    userInfo: reviewUserInfo,
    object: policyObject.nullish(),
    oldObject: policyObject.nullish(),
  }),
);

export interface PolicyReviewContext {
  /** may this user do this verb on the FencePolicy? (SubjectAccessReview with Palisade's credentials) */
  access(user: ReviewUser, verb: PolicyVerb, name: string): Promise<{ allowed: boolean; reason?: string }>;
  /** is this user Palisade itself on this cluster? */
  isSelf(username: string): Promise<boolean>;
  /** palisade.yaml fencing.credentialsNamespaces */
  credentialsNamespaces: readonly string[];
}

/** FencePolicy writes: the verbs pause and configure, and the agent rule's, on FencePolicies */
export const policySubjectAccess = (kc: k8s.KubeConfig): PolicyReviewContext['access'] =>
  userAccess(kc, { group: GROUP, resource: POLICY_PLURAL });

/**
 * Palisade's own user name on a cluster, asked once (SelfSubjectReview: no grant needed); until an
 * answer comes, nobody is taken for Palisade, so every writer is asked for its verbs.
 */
export function selfOn(kc: k8s.KubeConfig): PolicyReviewContext['isSelf'] {
  let known: string | undefined;
  return async (username) => {
    if (known === undefined) {
      try {
        const r = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        });
        known = r.status?.userInfo?.username || undefined;
      } catch {
        return false;
      }
    }
    return known !== undefined && username === known;
  };
}

const answer = (uid: string, refusal?: Refusal) => admissionAnswer(uid, refusal);

/** One review: [HTTP status, body]. Malformed: 400. Cannot ask the cluster: a refusal (code 500) saying why. */
export async function handlePolicyReview(text: string, ctx: PolicyReviewContext): Promise<[number, unknown]> {
  const parsed = parseReview(review, text);
  if (!parsed.ok) return parsed.answer;
  const req = parsed.review.request;
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return [200, answer(req.uid)];
  const name = req.name || req.object?.metadata?.name || '';
  const username = req.userInfo.username;
  const objectOf = (o: z.infer<typeof policyObject> | null | undefined) => ({
    spec: o?.spec,
    annotations: o?.metadata?.annotations ?? null,
  });
  try {
    const verdict = judgePolicyWrite({
      old: req.operation === 'UPDATE' ? objectOf(req.oldObject) : undefined,
      new: objectOf(req.object),
      self: await ctx.isSelf(username),
      credentialsNamespaces: ctx.credentialsNamespaces,
    });
    if (verdict.kind === 'invalid')
      return [
        200,
        answer(req.uid, {
          code: 422,
          reason: 'Invalid',
          message: `FencePolicy "${name}" is invalid: ${verdict.message}`,
        }),
      ];
    for (const verb of verdict.verbs) {
      const a = await ctx.access(req.userInfo, verb, name);
      if (!a.allowed) {
        const attrs = { verb, group: GROUP, resource: POLICY_PLURAL, name };
        return [
          200,
          answer(req.uid, {
            code: 403,
            reason: 'Forbidden',
            message: forbiddenMessage(attrs, username, a.reason),
          }),
        ];
      }
    }
  } catch (e) {
    // a question the cluster would not answer (it is down, or a SubjectAccessReview of no user and
    // no group is invalid): a refusal saying why, never an admission, never an HTTP 500 (which the
    // API server turns into "failed calling webhook" with no reason)
    return [
      200,
      answer(req.uid, {
        code: 500,
        reason: 'InternalError',
        message: `cannot judge the FencePolicy write of ${JSON.stringify(username)}: ${errorText(e)}`,
      }),
    ];
  }
  return [200, answer(req.uid)];
}

/** The webhook as the palisade-nodefences configuration carries it (clientConfig set by the caller). */
export function policyWebhook(url: string, caPem: string): k8s.V1ValidatingWebhook {
  return {
    name: POLICY_WEBHOOK_NAME,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    rules: [
      {
        apiGroups: [GROUP],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: [POLICY_PLURAL],
        scope: 'Cluster',
      },
    ],
  };
}
