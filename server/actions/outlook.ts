// Live reads for the force-delete dialog's "a fence is coming" (lib/guard/fenceOutlook): the
// FencePolicies, the node's Lease and its NodeFence's policy and fenceAt, read as the person.
// Any of them unreadable (no CRD, no RBAC to list policies or read Leases) only means the
// dialog cannot say a fence is coming: never an error, never a reason to call the pod safe.
import type * as k8s from '@kubernetes/client-node';
import { nodeFacts as fencingNodeFacts, leaseFacts, withLease } from '../fencing/facts.js';
import { GROUP, parseFencePolicy, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import {
  type FenceOutlook,
  fenceOutlook,
  type OutlookFence,
  type PolicyFacts,
  policyFactsOf,
} from '../../lib/guard/fenceOutlook.js';
import type { ActionApis } from './actor.js';
import { readFence } from './live.js';

/** A policy as the outlook needs it; paused and warningWindow read from the raw spec. */
export function policyFacts(raw: unknown): PolicyFacts | undefined {
  const parsed = parseFencePolicy(raw);
  if (!parsed.ok) return undefined;
  return policyFactsOf(parsed.value.metadata.name, parsed.value.spec, (raw as { spec?: unknown }).spec);
}

async function policies(apis: ActionApis): Promise<PolicyFacts[]> {
  try {
    const list = (await apis.custom.listClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: POLICY_PLURAL,
    })) as { items?: unknown[] };
    return (list.items ?? []).map(policyFacts).filter((p): p is PolicyFacts => !!p);
  } catch {
    return [];
  }
}

async function lease(apis: ActionApis, node: string) {
  try {
    return leaseFacts(
      await apis.coordination.readNamespacedLease({ namespace: 'kube-node-lease', name: node }),
    );
  } catch {
    return undefined;
  }
}

async function fence(apis: ActionApis, node: string): Promise<OutlookFence | undefined> {
  try {
    const f = (await readFence(apis, node))?.fence;
    if (!f) return undefined;
    const fenceAt = (f.status as { fenceAt?: string | null }).fenceAt;
    return {
      name: f.metadata.name,
      nodeName: f.spec.nodeName,
      policy: f.spec.policy,
      phase: f.status.phase,
      ...(fenceAt ? { fenceAt: Date.parse(fenceAt) } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Whether a fence is coming for this node, read live; undefined when it cannot be told. */
export async function readOutlook(
  apis: ActionApis,
  node: k8s.V1Node,
  heldByBudget?: string,
): Promise<FenceOutlook | undefined> {
  const name = node.metadata?.name;
  if (!name) return undefined;
  const [ps, l, f] = await Promise.all([policies(apis), lease(apis, name), fence(apis, name)]);
  return fenceOutlook({
    node: withLease(fencingNodeFacts(node), l),
    fence: f,
    policies: ps,
    now: Date.now(),
    heldByBudget,
  });
}
