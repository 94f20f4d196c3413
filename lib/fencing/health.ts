// When a node counts as unhealthy for a FencePolicy (medik8s Node Healthcheck's rule): one of the
// policy's conditions has held for its duration, and — unless the policy says otherwise — the
// node's Lease has not been renewed within its leaseDurationSeconds. Both, because a Ready
// condition alone can lag (the node lifecycle controller writes it) while the Lease is the
// kubelet's own heartbeat.
import { labelSelectorMatches } from '../kube/labelSelector.js';
import { durationMs, type FencePolicySpec } from './types.js';

export interface NodeCondition {
  type: string;
  status: string;
  /** ms since epoch */
  lastTransitionTime?: number;
}

export interface NodeFacts {
  name: string;
  uid: string;
  labels: Record<string, string>;
  conditions: NodeCondition[];
  taints: { key: string; value?: string; effect: string }[];
  /** status.nodeInfo.bootID: changes when the machine boots again */
  bootId?: string;
  /** the node's Lease in kube-node-lease: last renewal (ms) and its duration (s) */
  lease?: { renewTime?: number; durationSeconds?: number };
}

export type Health =
  | { healthy: true }
  | {
      healthy: false;
      since: number;
      why: string;
      longEnough: boolean;
      leaseStale: boolean;
      /** when it will be long enough (ms since epoch), if nothing changes */
      dueAt: number;
    };

export const selects = (p: FencePolicySpec, n: NodeFacts) =>
  labelSelectorMatches(p.nodeSelector, n.labels, { nilMatches: true });

/** The node's Lease is older than its duration (or missing). */
export function leaseStale(n: NodeFacts, now: number): boolean {
  const renew = n.lease?.renewTime;
  if (renew === undefined) return true;
  return now - renew > (n.lease?.durationSeconds ?? 40) * 1000;
}

export function nodeHealth(p: FencePolicySpec, n: NodeFacts, now: number): Health {
  for (const want of p.unhealthyConditions) {
    const c = n.conditions.find((x) => x.type === want.type);
    if (!c || c.status !== want.status) continue;
    const since = c.lastTransitionTime ?? now;
    const stale = leaseStale(n, now);
    // no renewal recorded: stale already (leaseStale), so the Lease sets no later due time
    const renew = n.lease?.renewTime;
    const leaseDue =
      renew === undefined ? Number.NEGATIVE_INFINITY : renew + (n.lease?.durationSeconds ?? 40) * 1000 + 1;
    return {
      healthy: false,
      since,
      why: `${want.type} is ${want.status} since ${new Date(since).toISOString()}`,
      longEnough: now - since >= durationMs(want.duration) && (!p.requireStaleLease || stale),
      leaseStale: stale,
      dueAt: Math.max(
        since + durationMs(want.duration),
        p.requireStaleLease ? leaseDue : Number.NEGATIVE_INFINITY,
      ),
    };
  }
  return { healthy: true };
}

/**
 * Whether a node counts as healthy for the fencing budget. Stricter than nodeHealth: a node
 * whose kubelet has missed a Lease renewal (none for half the Lease's duration; a kubelet renews
 * every quarter) is counted unhealthy before the node lifecycle controller marks it. Nodes cut
 * off together stop renewing together, but their Ready conditions change one monitor pass and
 * one renewal apart — without this, the first of them could be fenced while the budget still
 * counted the others healthy. A node with no Lease at all is judged on its conditions alone.
 */
export function healthyForBudget(p: FencePolicySpec, n: NodeFacts, now: number): boolean {
  if (!nodeHealth(p, n, now).healthy) return false;
  const renew = n.lease?.renewTime;
  if (renew === undefined) return true;
  return now - renew <= ((n.lease?.durationSeconds ?? 40) * 1000) / 2;
}

/**
 * The node came back from its fence: Ready, its kubelet heartbeating (a Lease renewal after the
 * fence proves a live kubelet) and booted again since it was detected (a new bootID: the old
 * processes are gone, which a heartbeat alone cannot show — a storage-fenced node's old
 * processes keep running until it reboots). Without a recorded bootID, the heartbeat decides.
 */
export function cameBack(n: NodeFacts, fencedAt: number, bootIdAtDetection: string | undefined, now: number) {
  const ready = n.conditions.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (bootIdAtDetection && n.bootId === bootIdAtDetection) return false;
  return !leaseStale(n, now) && (n.lease?.renewTime ?? 0) > fencedAt;
}
