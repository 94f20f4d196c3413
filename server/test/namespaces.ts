// Namespaces ready for pods on either back end. kube-apiserver's ServiceAccount admission
// refuses a pod (403 "error looking up service account <ns>/default") until the namespace's
// "default" ServiceAccount exists; kube-controller-manager creates it a moment after the
// namespace, and an API-only control plane has no controller manager at all.
import type * as k8s from '@kubernetes/client-node';
import { onRealControlPlane, serviceAccountReady } from '../../sim/apiserver/test/harness.js';

// one wait for the ServiceAccount, shared with the simulator's harnesses
export { serviceAccountReady };

/**
 * Create a namespace and wait until pods can be created in it. `apiOnly`: no controller
 * manager will create the ServiceAccount, so the test plays it (on a real control plane).
 */
export async function createReadyNamespace(
  core: k8s.CoreV1Api,
  name: string,
  opts: { apiOnly?: boolean } = {},
) {
  await core.createNamespace({ body: { metadata: { name } } });
  if (opts.apiOnly && onRealControlPlane)
    await core.createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: 'default' } } });
  await serviceAccountReady(core, name);
}
