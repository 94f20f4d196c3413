// What the fencing controller keeps of Nodes and Leases: exactly the inputs of the pure state
// machine (lib/fencing), so a live re-read and an informer event produce the same facts.
import type * as k8s from '@kubernetes/client-node';
import type { NodeFacts } from '../../lib/fencing/health.js';

const ms = (t: Date | string | undefined | null) => (t ? new Date(t).getTime() : undefined);

export type NodeFactsWithoutLease = Omit<NodeFacts, 'lease'>;

export function nodeFacts(n: k8s.V1Node): NodeFactsWithoutLease {
  return {
    name: n.metadata?.name ?? '',
    uid: n.metadata?.uid ?? '',
    labels: n.metadata?.labels ?? {},
    conditions: (n.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      lastTransitionTime: ms(c.lastTransitionTime),
    })),
    taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value, effect: t.effect })),
    bootId: n.status?.nodeInfo?.bootID || undefined,
  };
}

export interface LeaseFacts {
  name: string;
  renewTime?: number;
  durationSeconds?: number;
}

export function leaseFacts(l: k8s.V1Lease): LeaseFacts {
  return {
    name: l.metadata?.name ?? '',
    renewTime: ms(l.spec?.renewTime as Date | string | undefined),
    durationSeconds: l.spec?.leaseDurationSeconds,
  };
}

export function withLease(n: NodeFactsWithoutLease, l: LeaseFacts | undefined): NodeFacts {
  return { ...n, lease: l && { renewTime: l.renewTime, durationSeconds: l.durationSeconds } };
}
