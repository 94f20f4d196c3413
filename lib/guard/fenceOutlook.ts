// Whether a fence is coming for a node that is not fenced yet — so the force-delete dialog can
// point to the safe path ("wait: FencePolicy demo fences a2-1 in 8 s") instead of offering an
// override as the way forward. Pure: the server feeds it the live Node (with its Lease), the
// NodeFence and the FencePolicies; the rules are lib/fencing's (which policy covers a node,
// when a node counts unhealthy long enough), plus the warning window and pause of a policy.
import { type NodeFacts, nodeHealth, selects } from '../fencing/health.js';
import { durationMs, type FencePolicySpec, type Phase, TERMINAL_PHASES } from '../fencing/types.js';
import { FENCED_PHASES } from './fenced.js';

export interface PolicyFacts {
  name: string;
  spec: FencePolicySpec;
  /** spec.paused: the policy starts no new fence and holds Detected ones */
  paused: boolean;
  /** spec.warningWindow in ms (0 when the policy has none) */
  warningMs: number;
}

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/**
 * A policy as the outlook needs it. `paused` and `warningWindow` are read loosely from `loose`
 * (the raw spec, or the parsed one once the CRD's schema has them), so this works with
 * policies written before and after those fields existed.
 */
export function policyFactsOf(name: string, spec: FencePolicySpec, loose: unknown = spec): PolicyFacts {
  const l = (loose ?? {}) as { paused?: unknown; warningWindow?: unknown };
  const window = typeof l.warningWindow === 'string' && DURATION.test(l.warningWindow) ? l.warningWindow : '';
  return { name, spec, paused: l.paused === true, warningMs: window ? durationMs(window) : 0 };
}

export interface OutlookFence {
  name: string;
  nodeName: string;
  policy: string;
  phase: Phase;
  /** status.fenceAt (ms): when the agent may run, once the warning window is over */
  fenceAt?: number;
}

/** What comes for a node that is not fenced: typed, so callers word it and tests table it. */
export type FenceOutlook =
  /** no NodeFence yet: `policy` will fence the node at `fenceAt` if nothing changes */
  | { code: 'fence-pending'; node: string; policy: string; fenceAt: number }
  /** a NodeFence is under way (Detected, in its warning window, or Fencing) */
  | { code: 'fence-in-progress'; node: string; fence: string; policy: string; phase: Phase; fenceAt?: number }
  /** a Manual policy's fence waits for a person's approval */
  | { code: 'fence-awaiting-approval'; node: string; fence: string; policy: string }
  /** the fencing budget holds the node's fence (too many nodes unhealthy): no fence comes yet */
  | { code: 'fence-held'; node: string; policy: string; why: string }
  /** the covering policy is paused: no fence comes until someone resumes it */
  | { code: 'fence-paused'; node: string; policy: string }
  /** nothing will fence the node */
  | {
      code: 'no-fence-coming';
      node: string;
      why: 'healthy' | 'no-policy' | 'fence-ended' | 'already-fenced';
    };

export type WaitOutlook = Extract<
  FenceOutlook,
  { code: 'fence-pending' | 'fence-in-progress' | 'fence-awaiting-approval' }
>;

/** Outlooks that say "wait": a fence is coming and force delete is safe once it is done. */
export function isWait(o: FenceOutlook | undefined): o is WaitOutlook {
  return (
    o?.code === 'fence-pending' || o?.code === 'fence-in-progress' || o?.code === 'fence-awaiting-approval'
  );
}

export interface OutlookInput {
  /** the node as lib/fencing reads it (conditions with their transition times, Lease) */
  node: NodeFacts;
  fence?: OutlookFence;
  policies: readonly PolicyFacts[];
  now: number;
  /** why the fencing budget holds this node's fence, when it does (the controller's held list) */
  heldByBudget?: string;
}

/** A fence keeps its policy; a new one takes the first policy, by name, that selects the node. */
function coveringPolicy(policies: readonly PolicyFacts[], node: NodeFacts): PolicyFacts | undefined {
  return [...policies].sort((a, b) => a.name.localeCompare(b.name)).find((p) => selects(p.spec, node));
}

export function fenceOutlook(i: OutlookInput): FenceOutlook {
  const o = outlookIgnoringBudget(i);
  // a fence whose agent already runs is past the budget; one not yet there waits on it
  const waiting = o.code === 'fence-pending' || (o.code === 'fence-in-progress' && o.phase === 'Detected');
  return waiting && i.heldByBudget !== undefined
    ? { code: 'fence-held', node: o.node, policy: o.policy, why: i.heldByBudget }
    : o;
}

function outlookIgnoringBudget({ node, fence, policies, now }: OutlookInput): FenceOutlook {
  const at = node.name;
  if (fence && fence.nodeName === at && !TERMINAL_PHASES.has(fence.phase)) {
    if (FENCED_PHASES.has(fence.phase)) return { code: 'no-fence-coming', node: at, why: 'already-fenced' };
    const own = policies.find((p) => p.name === fence.policy);
    if (fence.phase === 'AwaitingApproval')
      return { code: 'fence-awaiting-approval', node: at, fence: fence.name, policy: fence.policy };
    if (fence.phase === 'Detected' && own?.paused)
      return { code: 'fence-paused', node: at, policy: fence.policy };
    return {
      code: 'fence-in-progress',
      node: at,
      fence: fence.name,
      policy: fence.policy,
      phase: fence.phase,
      ...(fence.fenceAt !== undefined ? { fenceAt: fence.fenceAt } : {}),
    };
  }
  // an ended fence (Failed, Cancelled, Recovered) is not a fence coming for this incident
  if (fence && fence.nodeName === at) return { code: 'no-fence-coming', node: at, why: 'fence-ended' };
  const policy = coveringPolicy(policies, node);
  if (!policy) return { code: 'no-fence-coming', node: at, why: 'no-policy' };
  const health = nodeHealth(policy.spec, node, now);
  if (health.healthy) return { code: 'no-fence-coming', node: at, why: 'healthy' };
  if (policy.paused) return { code: 'fence-paused', node: at, policy: policy.name };
  return {
    code: 'fence-pending',
    node: at,
    policy: policy.name,
    fenceAt: Math.max(health.dueAt, now) + policy.warningMs,
  };
}

/** One sentence for what is not a wait (the verdict's notes). */
export function outlookNote(o: FenceOutlook): string | undefined {
  if (o.code === 'fence-paused')
    return `FencePolicy ${o.policy} is paused: no fence comes for ${o.node} until someone resumes it`;
  if (o.code === 'fence-held')
    return `the fencing budget holds FencePolicy ${o.policy}'s fence of ${o.node} (${o.why}): no fence comes until enough nodes are healthy again`;
  if (o.code === 'no-fence-coming' && o.why === 'no-policy')
    return `no FencePolicy covers ${o.node}: no fence will come on its own`;
  return undefined;
}
