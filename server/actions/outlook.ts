// Live reads for the force-delete and fence-now dialogs' "a fence is coming" (lib/fencing/outlook):
// the FencePolicies, the node's Lease and its NodeFence, read as the person. Any of them
// unreadable (no CRD, no RBAC to list policies or read Leases) only means the dialog cannot say a
// fence is coming: never an error, never a reason to call the pod safe.
import type * as k8s from '@kubernetes/client-node';
import type { BudgetVerdict } from '../../lib/fencing/budget.js';
import type { PolicyEntry } from '../../lib/fencing/coverage.js';
import { fenceOutlook } from '../../lib/fencing/outlook.js';
import {
  type FencePolicySpec,
  GROUP,
  type NodeFence,
  parseFencePolicy,
  POLICY_PLURAL,
  VERSION,
} from '../../lib/fencing/types.js';
import type { FenceOutlook } from '../../lib/guard/fenceOutlook.js';
import { nodeFacts as fencingNodeFacts, leaseFacts, withLease } from '../fencing/facts.js';
import type { ActionApis } from './actor.js';
import { readFence } from './live.js';

/** A policy the controller could not parse has no spec: it covers nothing new, as for the controller. */
function policyEntry(raw: unknown): PolicyEntry | undefined {
  const name = (raw as { metadata?: { name?: unknown } })?.metadata?.name;
  if (typeof name !== 'string') return undefined;
  const parsed = parseFencePolicy(raw);
  return parsed.ok ? { name, spec: parsed.value.spec } : { name };
}

async function policies(apis: ActionApis): Promise<PolicyEntry[]> {
  try {
    const list = (await apis.custom.listClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: POLICY_PLURAL,
    })) as { items?: unknown[] };
    return (list.items ?? []).map(policyEntry).filter((p): p is PolicyEntry => !!p);
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

async function fence(apis: ActionApis, node: string): Promise<NodeFence | undefined> {
  try {
    return (await readFence(apis, node))?.fence;
  } catch {
    return undefined;
  }
}

/** The controller's budget count over a policy's nodes; undefined: not counted on this replica. */
export type BudgetOf = (spec: FencePolicySpec) => BudgetVerdict | undefined;

/** Nothing known of the budget (no fencing controller here): it holds nothing, as before any count. */
const UNCOUNTED: BudgetVerdict = {
  allowed: true,
  message: 'the budget is not counted here',
  selected: 0,
  unhealthy: 0,
  maxUnhealthy: 0,
};

/**
 * Whether a fence is coming for this node, read live; undefined when it cannot be told. `budget`
 * is the controller's count over a policy's nodes (server/fencing/world.ts budgetFor).
 */
export async function readOutlook(
  apis: ActionApis,
  node: k8s.V1Node,
  budget?: BudgetOf,
): Promise<FenceOutlook | undefined> {
  const name = node.metadata?.name;
  if (!name) return undefined;
  const [ps, l, f] = await Promise.all([policies(apis), lease(apis, name), fence(apis, name)]);
  return fenceOutlook({
    now: Date.now(),
    nodeName: name,
    node: withLease(fencingNodeFacts(node), l),
    fence: f,
    policies: ps,
    budget: (spec) => budget?.(spec) ?? UNCOUNTED,
  });
}
