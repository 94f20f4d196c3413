// The guarded-action dialog's rules, pure so they are table-tested: what still stops the submit
// button, and what the request then carries. The server checks all of it again (the seam); the
// dialog only keeps a person from sending what will be refused.
import type { GuardedAction } from './actions.js';
import type { Verdict } from './types.js';

const REASON_ALWAYS: ReadonlySet<GuardedAction> = new Set([
  'cancelFence',
  'pauseFencePolicy',
  'fenceNode',
  // the update's text, why an incident is over, what a declared one is about: all go into its record
  'declareIncident',
  'postIncidentUpdate',
  'resolveIncident',
]);

export interface DialogNeeds {
  /** the name to type */
  name: string;
  typedName: boolean;
  reason: boolean;
  /** a risk the guard lets a person acknowledge with one checkbox instead of typing */
  acknowledge?: boolean;
}

/**
 * What the person must give: the target's name and a reason to override an unsafe verdict (or
 * the name alone on a protected cluster); one acknowledgement when the guard says the risk is a
 * low-stakes one (a healthy node's kubelet still unmounting); a reason to cancel a fence.
 */
export function needsOf(v: Verdict, mode: string, action: GuardedAction, name: string): DialogNeeds {
  const unsafe = !v.safe;
  const acknowledge = unsafe && v.confirmation === 'acknowledge' && mode !== 'protected';
  return {
    name,
    typedName: (unsafe && !acknowledge) || mode === 'protected',
    // cancelling a fence or pausing a policy stops Palisade's own safety loop, and fencing by
    // hand goes past it: say why
    reason: (unsafe && !acknowledge) || REASON_ALWAYS.has(action),
    ...(acknowledge ? { acknowledge } : {}),
  };
}

export interface DialogInput {
  needs: DialogNeeds;
  /** set when the action is refused whatever is typed */
  refusal?: string;
  typed: string;
  reason: string;
  /** the acknowledgement box is ticked */
  acknowledged?: boolean;
}

/** Why the action cannot be sent yet, or undefined when it can. */
export function submitBlocker(i: DialogInput): string | undefined {
  if (i.refusal) return i.refusal;
  if (i.needs.typedName && i.typed !== i.needs.name)
    return i.typed ? `"${i.typed}" does not match "${i.needs.name}"` : `type "${i.needs.name}" to confirm`;
  if (i.needs.reason && !i.reason.trim()) return 'give a reason';
  if (i.needs.acknowledge && !i.acknowledged) return 'tick the box to confirm';
  return undefined;
}

/** The submission's confirmation fields: only what the action needs, the reason trimmed. */
export function submissionOf(i: DialogInput): { confirm?: string; reason?: string; acknowledged?: boolean } {
  return {
    ...(i.needs.typedName ? { confirm: i.typed } : {}),
    ...(i.reason.trim() ? { reason: i.reason.trim() } : {}),
    ...(i.needs.acknowledge && i.acknowledged ? { acknowledged: true } : {}),
  };
}

/**
 * Reasons a person picks with one click instead of typing (issue 25: inside a 10-second warning
 * window there is no time to compose a sentence). The text field stays: any reason may be typed.
 */
export const REASON_CHOICES: Partial<Record<GuardedAction, readonly string[]>> = {
  cancelFence: [
    'planned maintenance on this node',
    'the node is coming back: do not power it off',
    'a network or control-plane partition, not a node failure',
    'false alarm: its workloads are healthy',
  ],
  pauseFencePolicy: [
    'control-plane or network incident: hold fencing until it is understood',
    'planned maintenance on many nodes',
    'the fence agents or their network are unreliable',
  ],
  resumeFencePolicy: ['the incident is understood: fence as usual again', 'maintenance is over'],
  resolveIncident: [
    'the cluster is healthy and every workload has its replicas',
    'mitigated: the follow-up is in the postmortem',
    'not an incident: planned maintenance or a false alarm',
  ],
  declareIncident: [
    'users see errors or slowness: cause not known yet',
    'a zone, rack or the network looks unhealthy',
    'a risky change is under way and needs one commander',
  ],
  evictPod: [
    'rebalance: replicas of one workload share a node, rack or zone',
    'the pod misbehaves on this node: let the scheduler place it again',
  ],
  drainNode: [
    'planned maintenance on this node',
    'the node misbehaves: move its workloads off it',
    'decommissioning the node',
  ],
  fenceNode: [
    'the node is down and its workloads must move',
    'the node is dead: release its pods and volumes now',
  ],
};

/** The reason field's label: a status update's text is the update itself. */
export function reasonLabel(action: GuardedAction): string {
  if (action === 'postIncidentUpdate')
    return "The update (recorded in the incident and the cluster's Events, with your name)";
  return "Why (recorded in the cluster's Events, with your name)";
}
