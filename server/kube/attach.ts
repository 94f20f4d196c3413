// "Starts or attaches to the embedded cluster": when `npm run cluster` (or another console)
// already runs an embedded cluster with its kubeconfig in the state directory, the console
// joins it instead of starting a second one that would overwrite that kubeconfig.
import { readFile } from 'node:fs/promises';
import * as k8s from '@kubernetes/client-node';
import { EMBEDDED_CONTEXT } from './kubeconfig.js';

/** The API server URL when the kubeconfig's embedded cluster answers within `timeoutMs`. */
export async function runningEmbeddedCluster(
  kubeconfigPath: string,
  timeoutMs = 2_000,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(kubeconfigPath, 'utf8');
  } catch {
    return undefined;
  }
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromString(text);
    if (!kc.getContextObject(EMBEDDED_CONTEXT)) return undefined;
    kc.setCurrentContext(EMBEDDED_CONTEXT);
  } catch {
    return undefined;
  }
  const version = kc.makeApiClient(k8s.VersionApi).getCode();
  const timeout = new Promise<undefined>((r) => setTimeout(() => r(undefined), timeoutMs).unref());
  try {
    const answered = await Promise.race([version.then(() => true), timeout]);
    return answered ? kc.getCurrentCluster()?.server : undefined;
  } catch {
    return undefined; // a stale kubeconfig from a cluster that has stopped
  }
}
