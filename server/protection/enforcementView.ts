// What a follower replica tells of the webhook's enforcement: the leader writes its finding on
// each configuration (the palisade.dev/enforcement annotation); a follower reads it there.
import * as k8s from '@kubernetes/client-node';
import type { ClusterSpec } from '../kube/connection.js';
import { ENFORCEMENT_ANNOTATION, type EnforcementStatus, parseEnforcementAnnotation } from './enforcement.js';
import { WEBHOOK_NAME } from './register.js';

/** Each cell cluster's enforcement as its configuration says, or pending with why not. */
export function enforcementOnConfigurations(
  cells: readonly { id: string; cluster: ClusterSpec }[],
): Promise<EnforcementStatus[]> {
  return Promise.all(cells.map(readOne));
}

async function readOne(c: { id: string; cluster: ClusterSpec }): Promise<EnforcementStatus> {
  const base = { cell: c.id, cluster: c.cluster.id };
  try {
    const cfg = await c.cluster.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: WEBHOOK_NAME });
    const found = parseEnforcementAnnotation(cfg.metadata?.annotations?.[ENFORCEMENT_ANNOTATION]);
    const policy = cfg.webhooks?.find((w) => w.name === WEBHOOK_NAME)?.failurePolicy as
      | 'Fail'
      | 'Ignore'
      | undefined;
    return found
      ? { ...base, ...found, policy: policy ?? found.policy }
      : {
          ...base,
          state: 'pending',
          policy,
          message: 'no leader has probed the webhook yet',
          at: Date.now(),
        };
  } catch (e) {
    return {
      ...base,
      state: 'pending',
      message: `the configuration cannot be read: ${(e as Error).message}`,
      at: Date.now(),
    };
  }
}
