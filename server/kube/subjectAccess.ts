// "May the user who sent this admission request do <verb> on <group>/<resource> <name>?", asked
// of the cluster with a SubjectAccessReview under Palisade's credentials. The NodeFence approval
// webhook and the FencePolicy webhook both judge their writers this way. An error (the cluster
// down, a review it finds invalid) is thrown: the webhooks turn it into a refusal, never an
// admission.
import * as k8s from '@kubernetes/client-node';
import { z } from 'zod';

/** an AdmissionReview's request.userInfo, as the webhooks parse it (absent: nobody) */
export const reviewUserInfo = z
  .object({
    username: z.string().default(''),
    uid: z.string().optional(),
    groups: z.array(z.string()).optional(),
    extra: z.record(z.string(), z.array(z.string())).optional(),
  })
  .default({ username: '' });

export type ReviewUser = z.infer<typeof reviewUserInfo>;

export type UserAccess<Verb extends string> = (
  user: ReviewUser,
  verb: Verb,
  name: string,
) => Promise<{ allowed: boolean; reason?: string }>;

export function userAccess<Verb extends string>(
  kc: k8s.KubeConfig,
  on: { group: string; resource: string },
): UserAccess<Verb> {
  const api = kc.makeApiClient(k8s.AuthorizationV1Api);
  return async (user, verb, name) => {
    const r = await api.createSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups ?? [],
          ...(user.extra ? { extra: user.extra } : {}),
          resourceAttributes: { verb, group: on.group, resource: on.resource, name },
        },
      },
    });
    return { allowed: r.status?.allowed === true, reason: r.status?.reason || undefined };
  };
}
