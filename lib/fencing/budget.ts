// The fencing budget (Node Healthcheck's minHealthy / maxUnhealthy): when many nodes look
// unhealthy at once, the likelier story is that the control plane lost them (a partition on
// its side), not that they all died — fencing them all would turn a network blip into an
// outage. No fence starts while the budget is exceeded.
import { scaledValue } from '../kube/disruption.js';
import { healthyForBudget, type NodeFacts, selects } from './health.js';
import type { FencePolicySpec } from './types.js';

/** Neither set: at least 51% of the policy's nodes must be healthy (Node Healthcheck's default). */
export const DEFAULT_MIN_HEALTHY = '51%';

export interface BudgetVerdict {
  allowed: boolean;
  /** e.g. "3 of 5 nodes healthy, at least 3 (51%) required" */
  message: string;
  /** the nodes the policy selects, and how many of them count unhealthy */
  selected: number;
  unhealthy: number;
  /** the most nodes that may be unhealthy while fences still start */
  maxUnhealthy: number;
}

/** How many more nodes may fail before the budget holds every fence (negative: it holds them now). */
export const budgetMargin = (b: Pick<BudgetVerdict, 'maxUnhealthy' | 'unhealthy'>) =>
  b.maxUnhealthy - b.unhealthy;

export function judgeBudget(p: FencePolicySpec, selected: number, unhealthy: number): BudgetVerdict {
  const healthy = selected - unhealthy;
  if (p.maxUnhealthy !== undefined) {
    // rounded down: a percentage never allows more than it says
    const max = scaledValue(p.maxUnhealthy, selected, false);
    return {
      allowed: unhealthy <= max,
      message: `${unhealthy} of ${selected} nodes unhealthy, at most ${max} (maxUnhealthy ${p.maxUnhealthy}) allowed`,
      selected,
      unhealthy,
      maxUnhealthy: max,
    };
  }
  const minSpec = p.minHealthy ?? DEFAULT_MIN_HEALTHY;
  // rounded up: a percentage never asks for fewer healthy nodes than it says
  const min = scaledValue(minSpec, selected, true);
  return {
    allowed: healthy >= min,
    message: `${healthy} of ${selected} nodes healthy, at least ${min} (minHealthy ${minSpec}) required`,
    selected,
    unhealthy,
    maxUnhealthy: selected - min,
  };
}

/** A node as the budget counts it: its facts (with the Lease), and whether a fence is under way on it. */
export interface BudgetNode {
  node: NodeFacts;
  /** a NodeFence about it has not ended: it counts unhealthy whatever its conditions say */
  fencing: boolean;
}

/**
 * The budget over the nodes a policy selects: how many are unhealthy, missing heartbeats or being
 * fenced, judged against minHealthy/maxUnhealthy. The controller and the console's outlook both
 * count this way, so the console never says a fence comes that the budget holds.
 */
export function budgetOver(p: FencePolicySpec, nodes: Iterable<BudgetNode>, now: number): BudgetVerdict {
  let selected = 0;
  let unhealthy = 0;
  for (const { node, fencing } of nodes) {
    if (!selects(p, node)) continue;
    selected++;
    if (fencing || !healthyForBudget(p, node, now)) unhealthy++;
  }
  return judgeBudget(p, selected, unhealthy);
}
