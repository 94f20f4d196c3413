// Who a credential is on a cluster, answered by the cluster itself: a SelfSubjectReview
// (authentication.k8s.io/v1, GA since Kubernetes 1.28) sent with the credential. It needs no
// privilege, and it is how a pasted token is checked: a token the cluster does not accept
// answers 401.
import * as k8s from '@kubernetes/client-node';
import { codeOf, errorText } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Credential, Principal } from './identity.js';
import { makeClientAs } from './kubeAs.js';

export type WhoAmI = { ok: true; principal: Principal } | { ok: false; status?: number; message: string };

export async function whoAmI(conn: ClusterConnection, credential: Credential): Promise<WhoAmI> {
  try {
    const api = makeClientAs(conn.spec.kc, credential, k8s.AuthenticationV1Api);
    const r = await api.createSelfSubjectReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const u = r.status?.userInfo;
    if (!u?.username) return { ok: false, message: `cluster "${conn.id}" did not say who this is` };
    return {
      ok: true,
      principal: {
        username: u.username,
        ...(u.uid ? { uid: u.uid } : {}),
        groups: u.groups ?? [],
        ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
      },
    };
  } catch (e) {
    const status = codeOf(e);
    const message =
      status === 401
        ? `cluster "${conn.id}" does not accept this token (401 Unauthorized)`
        : `cluster "${conn.id}" could not be asked who this is: ${errorText(e)}`;
    return { ok: false, status, message };
  }
}
