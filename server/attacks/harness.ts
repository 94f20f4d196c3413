// Shared pieces of the attack tests (one file per attack of issue 23, point 6): people with
// exactly the rights an attacker would have, and raw requests that set every header as a
// browser or a script would.
import * as k8s from '@kubernetes/client-node';

export { rawRequest, type RawAnswer } from '../test/consoleHarness.js';

/**
 * A ServiceAccount that may view one namespace (palisade-viewer bound there) and, cluster-wide,
 * only what `clusterRules` grants; its token from a TokenRequest, as `kubectl create token`.
 */
export async function limitedPerson(
  kc: k8s.KubeConfig,
  namespace: string,
  name: string,
  clusterRules: k8s.V1PolicyRule[] = [],
): Promise<{ token: string; user: string }> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: `${name}-views` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'palisade-viewer' },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  if (clusterRules.length) {
    await rbac.createClusterRole({
      body: { metadata: { name: `${namespace}-${name}` }, rules: clusterRules },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `${namespace}-${name}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${namespace}-${name}` },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
  }
  const tr = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], expirationSeconds: 3600 },
    },
  });
  return { token: tr.status!.token, user: `system:serviceaccount:${namespace}:${name}` };
}

/** The Set-Cookie lines of an answer, each as "name=value". */
export const cookiesOf = (headers: { 'set-cookie'?: string[] }) =>
  (headers['set-cookie'] ?? []).map((x) => x.split(';')[0]);
