// The fencing state machine's input for one node, from the controller's informers and the
// console's cache: the policy that covers it, the node with its Lease, the budget over the
// policy's nodes, and what still runs on the node.
import { type BudgetVerdict, budgetOver } from '../../lib/fencing/budget.js';
import { coveringPolicy, fenceWorldOf, type PolicyEntry } from '../../lib/fencing/coverage.js';
import { nodeHealth } from '../../lib/fencing/health.js';
import type { FenceWorld } from '../../lib/fencing/machine.js';
import { type Upcoming, upcomingOf } from '../../lib/fencing/warning.js';
import { type FencePolicySpec, type NodeFence, TERMINAL_PHASES } from '../../lib/fencing/types.js';
import type { ClusterConnection } from '../kube/connection.js';
import { withLease } from './facts.js';
import type { FencingInformers } from './informers.js';

/** node Leases live in kube-node-lease, keyed namespace/name by the informer */
export const leaseOf = (inf: FencingInformers, node: string) => inf.leases.get(`kube-node-lease/${node}`);

/** The policies as the informer holds them (one it cannot parse has no spec). */
export const policiesOf = (inf: FencingInformers): PolicyEntry[] =>
  [...inf.policies.values()].map((p) => ({ name: p.name, spec: p.value?.spec }));

/** A fence keeps the policy it was created under; a new one takes the first (by name) that selects the node. */
export function policyFor(inf: FencingInformers, node: string, fence: NodeFence | undefined) {
  return coveringPolicy(policiesOf(inf), inf.nodes.get(node), fence);
}

/** The budget over the policy's nodes, as the controller counts it (lib/fencing/budget.ts). */
function budget(inf: FencingInformers, spec: FencePolicySpec, now: number) {
  return budgetOver(spec, budgetNodes(inf), now);
}

function* budgetNodes(inf: FencingInformers) {
  for (const n of inf.nodes.values()) {
    const f = inf.fences.get(n.name)?.value;
    yield { node: withLease(n, leaseOf(inf, n.name)), fencing: !!f && !TERMINAL_PHASES.has(f.status.phase) };
  }
}

function budgetOnce(
  inf: FencingInformers,
  spec: FencePolicySpec,
  now: number,
  budgets: Map<FencePolicySpec, BudgetVerdict> | undefined,
) {
  const known = budgets?.get(spec);
  if (known) return known;
  const b = budget(inf, spec, now);
  budgets?.set(spec, b);
  return b;
}

/** The budget over a policy's nodes now, as the controller counts it (for the dialogs' outlook). */
export function budgetOf(inf: FencingInformers, spec: FencePolicySpec, now = Date.now()): BudgetVerdict {
  return budget(inf, spec, now);
}

/** Every readable policy's budget now, by name: the incident headline's margin. */
export function budgetsOf(
  inf: FencingInformers,
  now = Date.now(),
): { policy: string; budget: BudgetVerdict }[] {
  return policiesOf(inf)
    .filter((p): p is PolicyEntry & { spec: FencePolicySpec } => !!p.spec)
    .map((p) => ({ policy: p.name, budget: budget(inf, p.spec, now) }));
}

export function worldOf(
  inf: FencingInformers,
  conn: ClusterConnection,
  node: string,
  fence: NodeFence | undefined,
  inFlight: boolean,
  /** budgets already judged at this instant, by policy spec (a list of many nodes judges each once) */
  budgets?: Map<FencePolicySpec, BudgetVerdict>,
): FenceWorld | undefined {
  const facts = inf.nodes.get(node);
  const now = Date.now();
  const running = conn.cache.podsOnNode(node).filter((p) => p.state !== 'Succeeded' && p.state !== 'Failed');
  const attachments = [...conn.informers.volumeAttachments.values()].filter(
    (a) => (a as { node?: string }).node === node,
  );
  return fenceWorldOf({
    now,
    policies: policiesOf(inf),
    nodeName: node,
    node: facts && withLease(facts, leaseOf(inf, node)),
    fence,
    budget: (spec) => budgetOnce(inf, spec, now, budgets),
    podsOnNode: running.length,
    attachmentsOnNode: attachments.length,
    inFlight,
  })?.world;
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
  const budgets = new Map<FencePolicySpec, BudgetVerdict>();
  for (const n of inf.nodes.values()) {
    const fence = inf.fences.get(n.name)?.value;
    const policy = policyFor(
      inf,
      n.name,
      fence && TERMINAL_PHASES.has(fence.status.phase) ? undefined : fence,
    );
    if (!policy?.spec || nodeHealth(policy.spec, withLease(n, leaseOf(inf, n.name)), now).healthy) continue;
    const w = worldOf(inf, conn, n.name, fence, false, budgets);
    // an ended fence: the new one is created under the policy covering the node now
    const nw = fence ? worldOf(inf, conn, n.name, undefined, false, budgets) : w;
    const u: Upcoming | undefined = w && nw && upcomingOf({ ...w, now }, { ...nw, now });
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
