// One optimistic write of a PodProtector's status (resourceVersion in the body), shared by
// the webhook, the aggregator and the generator: the outcome is counted per writer, a 409
// or 404 is an answer to handle, anything else is thrown.
import type * as k8s from '@kubernetes/client-node';
import { GROUP, PLURAL, type PodProtector, parseProtector, VERSION } from '../../lib/protection/types.js';
import type { ProtectionMetrics } from './metrics.js';

export type StatusWrite = { outcome: 'ok'; written?: PodProtector } | { outcome: 'conflict' | 'gone' };

export async function writeStatus(
  custom: k8s.CustomObjectsApi,
  metrics: ProtectionMetrics,
  writer: 'webhook' | 'aggregator' | 'generator',
  next: PodProtector,
): Promise<StatusWrite> {
  const { namespace, name } = next.metadata;
  try {
    const res = await custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace,
      name,
      body: next,
    });
    metrics.statusWrites.inc({ writer, outcome: 'ok' });
    const parsed = parseProtector(res);
    return { outcome: 'ok', ...(parsed.ok ? { written: parsed.value } : {}) };
  } catch (e) {
    const code = (e as { code?: number }).code;
    metrics.statusWrites.inc({ writer, outcome: code === 409 ? 'conflict' : 'error' });
    if (code === 409) return { outcome: 'conflict' };
    if (code === 404) return { outcome: 'gone' };
    throw new Error(`cannot update PodProtector ${namespace}/${name} status: ${(e as Error).message}`);
  }
}
