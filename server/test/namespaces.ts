// Namespaces ready for pods on either back end. kube-apiserver's ServiceAccount admission
// refuses a pod (403 "error looking up service account <ns>/default") until the namespace's
// "default" ServiceAccount exists; kube-controller-manager creates it a moment after the
// namespace, and an API-only control plane has no controller manager at all.
import type * as k8s from '@kubernetes/client-node';
import { eventually, onRealControlPlane } from '../../sim/apiserver/test/harness.js';

/** Wait for the namespace's "default" ServiceAccount (no-op on the embedded API server). */
export async function serviceAccountReady(core: k8s.CoreV1Api, namespace: string) {
  if (!onRealControlPlane) return;
  await eventually(
    () => core.readNamespacedServiceAccount({ name: 'default', namespace }),
    `ServiceAccount ${namespace}/default`,
    30_000,
  );
}

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
