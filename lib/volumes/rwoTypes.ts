// The RWO attach view's inputs and rows: per PersistentVolume, where it is attached, who
// uses it, who waits for it and why, what may release it (and when), and on the embedded
// cluster which nodes really write to it. Types only; see rwoView.ts.
import type { NodeView, PodState, PodView } from '../console/protocol.js';
import type { NodeDisplayState } from '../console/ui/states.js';
import type { AttachmentView, EventView, VolumeView } from '../console/views.js';

/**
 * A VolumeAttachment. The console's trimmed view has no deletionTimestamp and folds both
 * errors into `error`; the optional fields are used when the caller has them.
 */
export interface AttachmentInput extends AttachmentView {
  /** ms: set while the attacher detaches (the object waits for its finalizer) */
  deletionTimestamp?: number;
  attachError?: string;
  detachError?: string;
}

/** An Event about a pod. `firstSeen` (firstTimestamp) dates a Multi-Attach wait exactly. */
export interface EventInput
  extends Pick<EventView, 'involved' | 'reason' | 'message' | 'count' | 'lastSeen'> {
  firstSeen?: number;
}

/** A pod the console saw leave the API, with when: dates the attach/detach controller's detach request. */
export interface DepartedPod {
  namespace: string;
  name: string;
  uid: string;
  node?: string;
  claims: string[];
  /** ms since epoch */
  at: number;
}

/** A running process in the embedded cluster's ground truth. */
export interface TruthProcess {
  node: string;
  namespace: string;
  podName: string;
  podUid: string;
  /** PersistentVolume names it has open */
  volumes: string[];
}

export interface GroundTruthInput {
  processes: TruthProcess[];
  /** node -> volumes cut off by a storage fence ("*": all of them) */
  fenced: Record<string, string[]>;
}

/**
 * kube-controller-manager's force detach: maxWaitForUnmountDuration (6 minutes, not a flag)
 * and --disable-force-detach-on-timeout. The embedded cluster scales the wait.
 */
export interface ForceDetachSettings {
  enabled: boolean;
  maxWaitMs: number;
}

export interface RwoInput {
  now: number;
  pvs: readonly VolumeView[];
  pvcs: readonly VolumeView[];
  attachments: readonly AttachmentInput[];
  /** pods (those without claims are ignored) */
  pods: readonly PodView[];
  nodes: readonly NodeView[];
  /** FailedAttachVolume events about pods (others are ignored) */
  events: readonly EventInput[];
  /** recently deleted pods with claims, for the force-detach countdown */
  departed?: readonly DepartedPod[];
  forceDetach: ForceDetachSettings;
  /** a detach still pending after this long counts as stuck (default 2 minutes) */
  stuckAfterMs?: number;
  /** nodes confirmed fenced (powered off or cut from storage) */
  fencedNodes?: ReadonlySet<string>;
  /** the embedded cluster's ground truth; undefined elsewhere */
  truth?: GroundTruthInput;
}

export type NodeHealth = NodeDisplayState | 'gone';
export type Risk = 'ok' | 'waiting' | 'stuck' | 'split-brain-risk';

export interface PodRefRow {
  namespace: string;
  name: string;
  uid: string;
  node?: string;
  nodeHealth?: NodeHealth;
}

export interface VolumeUser extends PodRefRow {
  phase?: string;
  state: PodState;
  terminating: boolean;
}

export type WaitReason = 'multi-attach' | 'attach-error' | 'attaching';

export interface VolumeWaiter extends PodRefRow {
  reason: WaitReason;
  /** being deleted while it waits (e.g. evicted from a node that went unreachable) */
  terminating: boolean;
  /** ms: since when it waits */
  since?: number;
  /** what `since` was read from */
  sinceFrom: 'event' | 'pod-created' | 'unknown';
  /** the FailedAttachVolume message or the attach error */
  message?: string;
  /** nodes holding the volume that keep it from this pod's node */
  blockedBy: string[];
}

export type ForceDetach =
  | { state: 'not-applicable'; text: string }
  | { state: 'blocked'; text: string; pods: string[] }
  | { state: 'counting' | 'due'; text: string; since: number; deadline: number }
  | { state: 'unknown-start'; text: string; maxWaitMs: number }
  | { state: 'immediate' | 'disabled'; text: string };

export interface AttachmentRow {
  name: string;
  node: string;
  attached: boolean;
  nodeHealth: NodeHealth;
  /** the VolumeAttachment is being deleted (detach under way) */
  detaching: boolean;
  detachingSince?: number;
  attachError?: string;
  detachError?: string;
  /** pods in the API on this node that use the volume */
  usersOnNode: string[];
  /** why this detach is stuck, when it is */
  stuck?: string;
  forceDetach: ForceDetach;
  /** advisory: what the view sees; the guarded detach dialog decides */
  detachHint: { safe: boolean; why: string };
}

export interface VolumeWriter {
  node: string;
  pod: string;
  podUid: string;
  /** false: a storage fence cuts this node off the volume */
  canWrite: boolean;
  /** how the API sees the writer's pod */
  api: 'user' | 'gone' | 'elsewhere';
}

export interface RwoRow {
  pv: string;
  phase?: string;
  accessModes: string[];
  /** ReadWriteOnce/ReadWriteOncePod: Kubernetes refuses a second node (no modes at all: any node) */
  exclusive: boolean;
  storageClass?: string;
  claim?: { namespace: string; name: string };
  attachments: AttachmentRow[];
  /** nodes whose attachment reports attached */
  attachedTo: string[];
  users: VolumeUser[];
  waiters: VolumeWaiter[];
  /** ground truth only: processes writing it */
  writers?: VolumeWriter[];
  risk: Risk;
  explanation: string;
}
