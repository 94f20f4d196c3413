// One optimistic write of a PodProtector's status (resourceVersion in the body), shared by
// the webhook, the aggregator and the generator: the outcome is counted per writer, a 409
// or 404 is an answer to handle (a stale leader epoch excepted), anything else is thrown.
import type * as k8s from '@kubernetes/client-node';
import { GROUP, PLURAL, type PodProtector, parseProtector, VERSION } from '../../lib/protection/types.js';
import { KeepAliveJson } from '../kube/keepAlive.js';
import type { ProtectionMetrics } from './metrics.js';
import { codeOf, errorText } from '../../lib/kube/errorText.js';
import { isStaleEpochRefusal } from '../../lib/leader/events.js';

/** Reads and optimistic writes of a PodProtector's status subresource. */
export interface StatusApi {
  readStatus(namespace: string, name: string): Promise<unknown>;
  replaceStatus(next: PodProtector): Promise<unknown>;
  close?(): void;
}

const statusPath = (namespace: string, name: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURAL}/${encodeURIComponent(name)}/status`;

/**
 * The webhook's and the aggregators' status API: on kept-alive connections, since a storm
 * is a stream of them (see server/kube/keepAlive.ts for why not client-node here).
 */
/** fieldManager: the leader's epoch on its writes (the aggregator); none for the webhook's own. */
export function keepAliveStatusApi(kc: k8s.KubeConfig, fieldManager?: string): StatusApi {
  const http = new KeepAliveJson(kc);
  const query = fieldManager ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '';
  return {
    readStatus: (namespace, name) => http.request('GET', statusPath(namespace, name)),
    replaceStatus: (next) =>
      http.request('PUT', `${statusPath(next.metadata.namespace, next.metadata.name)}${query}`, next),
    close: () => http.close(),
  };
}

/** The same through client-node, for writers that write rarely (the generator). */
export function clientNodeStatusApi(custom: k8s.CustomObjectsApi): StatusApi {
  const ref = { group: GROUP, version: VERSION, plural: PLURAL };
  return {
    readStatus: (namespace, name) => custom.getNamespacedCustomObjectStatus({ ...ref, namespace, name }),
    replaceStatus: (next) =>
      custom.replaceNamespacedCustomObjectStatus({
        ...ref,
        namespace: next.metadata.namespace,
        name: next.metadata.name,
        body: next,
      }),
  };
}

export type StatusWrite = { outcome: 'ok'; written?: PodProtector } | { outcome: 'conflict' | 'gone' };

export async function writeStatus(
  api: StatusApi,
  metrics: ProtectionMetrics,
  writer: 'webhook' | 'aggregator' | 'generator',
  next: PodProtector,
): Promise<StatusWrite> {
  const { namespace, name } = next.metadata;
  try {
    const res = await api.replaceStatus(next);
    metrics.statusWrites.inc({ writer, outcome: 'ok' });
    const parsed = parseProtector(res);
    return { outcome: 'ok', ...(parsed.ok ? { written: parsed.value } : {}) };
  } catch (e) {
    const code = codeOf(e);
    // a leader write of a stale epoch (a 409 from Palisade's webhook) is not a conflict to retry:
    // thrown as it came, so the runtime sees the cause and steps down
    if (isStaleEpochRefusal(e)) {
      metrics.statusWrites.inc({ writer, outcome: 'error' });
      throw e;
    }
    metrics.statusWrites.inc({ writer, outcome: code === 409 ? 'conflict' : 'error' });
    if (code === 409) return { outcome: 'conflict' };
    if (code === 404) return { outcome: 'gone' };
    throw new Error(`cannot update PodProtector ${namespace}/${name} status: ${errorText(e)}`);
  }
}
