// What every guarded action provides to the seam: a loader that reads the objects live and
// returns the target, the guard's verdict, what will happen, and the write itself — a closure
// over what was read, made conditional on a resourceVersion, as a dry run or for real.
import type * as k8s from '@kubernetes/client-node';
import type { GuardedAction } from '../../lib/guard/actions.js';
import { fenceState } from '../../lib/guard/fenced.js';
import type { FenceFacts, ReadyStatus, Verdict } from '../../lib/guard/types.js';
import type { IncidentSeverity } from '../../lib/incident/record.js';
import type { Actor } from './actor.js';
import { nodeFacts } from './live.js';

export type ActionRequest =
  | { action: 'forceDeletePod'; namespace: string; name: string }
  | { action: 'detachVolume'; attachment: string }
  | { action: 'removeOutOfServiceTaint'; node: string }
  | { action: 'approveFence'; fence: string }
  | { action: 'cancelFence'; fence: string; reason?: string }
  | { action: 'fenceNode'; node: string; reason?: string }
  | { action: 'pauseFencePolicy'; policy: string; reason?: string }
  | { action: 'resumeFencePolicy'; policy: string; reason?: string }
  | { action: 'cordonNode'; node: string }
  | { action: 'uncordonNode'; node: string }
  | { action: 'drainNode'; node: string; reason?: string }
  | { action: 'evictPod'; namespace: string; name: string; reason?: string }
  | { action: 'declareIncident'; severity: IncidentSeverity; reason?: string }
  | { action: 'takeIncidentCommand'; incident: string }
  | { action: 'postIncidentUpdate'; incident: string; reason?: string }
  | { action: 'setIncidentSeverity'; incident: string; severity: IncidentSeverity; reason?: string }
  | { action: 'resolveIncident'; incident: string; reason?: string };

/** what a protected cluster asks to be typed to declare an incident: it has no name before it exists */
export const DECLARE_TARGET = 'incident';

/** The name a person types to confirm (protected clusters, unsafe actions). */
export function targetName(r: ActionRequest): string {
  switch (r.action) {
    case 'forceDeletePod':
    case 'evictPod':
      return r.name;
    case 'detachVolume':
      return r.attachment;
    case 'removeOutOfServiceTaint':
    case 'fenceNode':
    case 'cordonNode':
    case 'uncordonNode':
    case 'drainNode':
      return r.node;
    case 'pauseFencePolicy':
    case 'resumeFencePolicy':
      return r.policy;
    case 'declareIncident':
      return DECLARE_TARGET;
    case 'takeIncidentCommand':
    case 'postIncidentUpdate':
    case 'setIncidentSeverity':
    case 'resolveIncident':
      return r.incident;
    default:
      return r.fence;
  }
}

export interface Target {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  uid: string;
  resourceVersion: string;
}

/** The node the action is about, as the dialog shows it. */
export interface NodeSummary {
  name: string;
  exists: boolean;
  ready?: ReadyStatus;
  fenced: boolean;
  /** "NodeFence a1-2 is Fenced: ..." or "node a1-2 is not fenced (no NodeFence for it)" */
  fence: string;
}

export interface WriteOptions {
  dryRun: boolean;
  resourceVersion: string;
  actor: Actor;
  /** the reason typed (cancelFence writes it into the fence; pause into the policy's annotation) */
  reason: string;
  at: Date;
}

export interface Loaded {
  action: GuardedAction;
  target: Target;
  verdict: Verdict;
  /** what the action does, step by step */
  will: string[];
  node?: NodeSummary;
  related?: k8s.V1ObjectReference;
  /** the record's account of what happened, e.g. "force-deleted pod shop/db-0 on node a1-2 (...)" */
  what: string;
  /**
   * The object a person may have reviewed instead of this target, when this one took its place
   * for the same decision: a fence announced on its Node, whose NodeFence the controller created
   * while the dialog was open. An expectation on that uid carries over (the write is still
   * conditional, on this target's live resourceVersion).
   */
  supersedes?: { kind: string; uid: string };
  /**
   * The decision rests on this live reading alone, not on the exact version the person reviewed:
   * the write is made conditional on the resourceVersion just read (and judged) here. Cancelling
   * a fence in its warning window: the controller writes its status meanwhile, and a cancel is
   * as safe after that write as before it (issue 25: the 409 cost the commander the window).
   * A rebased write that still meets a 409 is read, judged and written again, up to 5 times
   * (perform.ts, as client-go's RetryOnConflict).
   */
  rebase?: boolean;
  /** the record says what the write answered too (a drain: which pods were evicted, which refused) */
  recordOutcome?: boolean;
  /** performs the write; answers what the API server did (or would do, on a dry run) */
  write(o: WriteOptions): Promise<string>;
}

/** A Node as an action's target (its uid and resourceVersion as just read). */
export function nodeTarget(node: k8s.V1Node): Target {
  return {
    kind: 'Node',
    apiVersion: 'v1',
    name: node.metadata!.name!,
    uid: node.metadata!.uid!,
    resourceVersion: node.metadata!.resourceVersion!,
  };
}

/** A Pod as an action's target (its uid and resourceVersion as just read). */
export function podTarget(pod: k8s.V1Pod): Target {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    namespace: pod.metadata!.namespace!,
    name: pod.metadata!.name!,
    uid: pod.metadata!.uid!,
    resourceVersion: pod.metadata!.resourceVersion!,
  };
}

export function nodeSummary(name: string, node: k8s.V1Node | undefined, fence?: FenceFacts): NodeSummary {
  const facts = node && nodeFacts(node);
  const s = fenceState(facts, name, fence);
  return { name, exists: !!node, ready: facts?.ready, fenced: s.fenced, fence: s.text };
}

/** What a DELETE did or would do, from the object the API server answered with. */
export function deletionOutcome(
  obj: { metadata?: k8s.V1ObjectMeta } | undefined,
  dryRun: boolean,
  noun: string,
) {
  const finalizers = obj?.metadata?.finalizers ?? [];
  const verb = dryRun ? 'would be' : 'was';
  if (finalizers.length > 0)
    return `${noun} ${verb} marked for deletion; it goes once its finalizers (${finalizers.join(', ')}) are removed`;
  return `${noun} ${verb} removed from the API${dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
}
