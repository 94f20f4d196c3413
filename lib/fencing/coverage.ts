// Which FencePolicy speaks for a node, and the state machine's input built from it: the one place
// both the controller (server/fencing/world.ts, from its informers) and the console's outlook
// (server/actions/outlook.ts, read live as the person) build a FenceWorld, so the dialogs can
// never judge a node under another policy, window or budget than the controller does.
import type { BudgetVerdict } from './budget.js';
import { type NodeFacts, selects } from './health.js';
import type { FenceWorld } from './machine.js';
import { type FencePolicySpec, fencePolicySpec, type NodeFence } from './types.js';

/** A FencePolicy by name; `spec` undefined: one Palisade cannot read (it covers nothing new). */
export interface PolicyEntry {
  name: string;
  spec?: FencePolicySpec;
}

export interface Coverage {
  name: string;
  spec?: FencePolicySpec;
  /** the fence's policy no longer exists (or cannot be read) */
  missing: boolean;
}

/** Used for fences whose policy was deleted after the node was fenced: only release/recovery remain. */
export const AFTER_POLICY_DELETED: FencePolicySpec = fencePolicySpec.parse({ agent: { type: 'power' } });

const byName = (policies: Iterable<PolicyEntry>) =>
  [...policies].sort((a, b) => a.name.localeCompare(b.name));

/** A fence keeps the policy it was created under; a new one takes the first (by name) that selects the node. */
export function coveringPolicy(
  policies: Iterable<PolicyEntry>,
  node: NodeFacts | undefined,
  fence: NodeFence | undefined,
): Coverage | undefined {
  const all = byName(policies);
  if (fence) {
    const p = all.find((x) => x.name === fence.spec.policy);
    return { name: fence.spec.policy, spec: p?.spec, missing: !p?.spec };
  }
  const p = node && all.find((x) => x.spec && selects(x.spec, node));
  return p?.spec ? { name: p.name, spec: p.spec, missing: false } : undefined;
}

export interface WorldInput {
  now: number;
  policies: Iterable<PolicyEntry>;
  nodeName: string;
  /** undefined: no Node object by that name */
  node?: NodeFacts;
  fence?: NodeFence;
  /** the budget over the covering policy's nodes (lib/fencing/budget.ts budgetOver) */
  budget: (spec: FencePolicySpec) => BudgetVerdict;
  podsOnNode: number;
  attachmentsOnNode: number;
  inFlight: boolean;
}

/** The state machine's input for one node, and the policy it is judged under; undefined: none covers it. */
export function fenceWorldOf(i: WorldInput): { world: FenceWorld; policy: string } | undefined {
  const cover = coveringPolicy(i.policies, i.node, i.fence);
  if (!cover) return undefined;
  const spec = cover.spec ?? AFTER_POLICY_DELETED;
  return {
    policy: cover.name,
    world: {
      now: i.now,
      policy: spec,
      node: i.node,
      fence: i.fence,
      budget: i.budget(spec),
      podsOnNode: i.podsOnNode,
      attachmentsOnNode: i.attachmentsOnNode,
      inFlight: i.inFlight,
      policyMissing: cover.missing,
    },
  };
}
