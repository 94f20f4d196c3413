// The fencing state machine's input for one node, from the controller's informers and the
// console's cache: the policy that covers it, the node with its Lease, the budget over the
// policy's nodes, and what still runs on the node.
import { judgeBudget } from '../../lib/fencing/budget.js';
import { healthyForBudget, selects } from '../../lib/fencing/health.js';
import type { FenceWorld } from '../../lib/fencing/machine.js';
import { nodeHealth } from '../../lib/fencing/health.js';
import { type Upcoming, upcomingOf } from '../../lib/fencing/warning.js';
import {
  type FencePolicySpec,
  fencePolicySpec,
  type NodeFence,
  TERMINAL_PHASES,
} from '../../lib/fencing/types.js';
import type { ClusterConnection } from '../kube/connection.js';
import { withLease } from './facts.js';
import type { FencingInformers } from './informers.js';

/** Used for fences whose policy was deleted after the node was fenced: only release/recovery remain. */
const AFTER_POLICY_DELETED = fencePolicySpec.parse({ agent: { type: 'power' } });

/** node Leases live in kube-node-lease, keyed namespace/name by the informer */
export const leaseOf = (inf: FencingInformers, node: string) => inf.leases.get(`kube-node-lease/${node}`);

/** A fence keeps the policy it was created under; a new one takes the first (by name) that selects the node. */
export function policyFor(inf: FencingInformers, node: string, fence: NodeFence | undefined) {
  const all = [...inf.policies.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (fence) {
    const p = all.find((x) => x.name === fence.spec.policy);
    return { name: fence.spec.policy, spec: p?.value?.spec, missing: !p?.value };
  }
  const facts = inf.nodes.get(node);
  const p = facts && all.find((x) => x.value && selects(x.value.spec, facts));
  return p?.value ? { name: p.name, spec: p.value.spec, missing: false } : undefined;
}

/** Nodes the policy selects, and how many of them are unhealthy, missing heartbeats or being fenced. */
function budget(inf: FencingInformers, spec: FencePolicySpec, now: number) {
  let selected = 0;
  let unhealthy = 0;
  for (const n of inf.nodes.values()) {
    if (!selects(spec, n)) continue;
    selected++;
    const f = inf.fences.get(n.name)?.value;
    const fencing = f && !TERMINAL_PHASES.has(f.status.phase);
    if (fencing || !healthyForBudget(spec, withLease(n, leaseOf(inf, n.name)), now)) unhealthy++;
  }
  return judgeBudget(spec, selected, unhealthy);
}

function budgetOnce(
  inf: FencingInformers,
  spec: FencePolicySpec,
  now: number,
  budgets: Map<FencePolicySpec, ReturnType<typeof judgeBudget>> | undefined,
) {
  const known = budgets?.get(spec);
  if (known) return known;
  const b = budget(inf, spec, now);
  budgets?.set(spec, b);
  return b;
}

export function worldOf(
  inf: FencingInformers,
  conn: ClusterConnection,
  node: string,
  fence: NodeFence | undefined,
  inFlight: boolean,
  /** budgets already judged at this instant, by policy spec (a list of many nodes judges each once) */
  budgets?: Map<FencePolicySpec, ReturnType<typeof judgeBudget>>,
): FenceWorld | undefined {
  const policy = policyFor(inf, node, fence);
  if (!policy) return undefined;
  const facts = inf.nodes.get(node);
  const now = Date.now();
  const spec = policy.spec ?? AFTER_POLICY_DELETED;
  const running = conn.cache.podsOnNode(node).filter((p) => p.state !== 'Succeeded' && p.state !== 'Failed');
  const attachments = [...conn.informers.volumeAttachments.values()].filter(
    (a) => (a as { node?: string }).node === node,
  );
  return {
    now,
    policy: spec,
    node: facts && withLease(facts, leaseOf(inf, node)),
    fence,
    budget: budgetOnce(inf, spec, now, budgets),
    podsOnNode: running.length,
    attachmentsOnNode: attachments.length,
    inFlight,
    policyMissing: policy.missing,
  };
}

/** What still waits on a node: pods bound to it (not finished) and the VolumeAttachments naming it. */
export function waitingOn(conn: ClusterConnection, node: string) {
  const pods = conn.cache
    .podsOnNode(node)
    .filter((p) => p.state !== 'Succeeded' && p.state !== 'Failed')
    .map((p) => ({ namespace: p.namespace, name: p.name, state: p.state }));
  const volumes = [...conn.informers.volumeAttachments.values()]
    .map((a) => a as { name?: string; pv?: string; node?: string })
    .filter((a) => a.node === node)
    .map((a) => ({ attachment: a.name ?? '', pv: a.pv }));
  return { pods, volumes };
}

export interface UpcomingFence {
  node: string;
  policy: string;
  /** ISO: when the agent may run if nothing changes */
  fenceAt: string;
  paused: boolean;
}

/**
 * Nodes a policy will fence automatically that have no NodeFence in progress yet, with when, from
 * the machine's own rules (lib/fencing/warning.ts). Only unhealthy nodes are judged in full, and
 * each policy's budget (a walk over every node) once per list.
 */
export function upcomingFences(
  inf: FencingInformers,
  conn: ClusterConnection,
  now = Date.now(),
): UpcomingFence[] {
  const out: UpcomingFence[] = [];
  const budgets = new Map<FencePolicySpec, ReturnType<typeof judgeBudget>>();
  for (const n of inf.nodes.values()) {
    const fence = inf.fences.get(n.name)?.value;
    const policy = policyFor(
      inf,
      n.name,
      fence && TERMINAL_PHASES.has(fence.status.phase) ? undefined : fence,
    );
    if (!policy?.spec || nodeHealth(policy.spec, withLease(n, leaseOf(inf, n.name)), now).healthy) continue;
    const w = worldOf(inf, conn, n.name, fence, false, budgets);
    const u: Upcoming | undefined = w && upcomingOf({ ...w, now });
    if (u)
      out.push({
        node: n.name,
        policy: policy.name,
        fenceAt: new Date(u.fenceAt).toISOString(),
        paused: u.paused,
      });
  }
  return out.sort((a, b) => a.fenceAt.localeCompare(b.fenceAt) || a.node.localeCompare(b.node));
}
