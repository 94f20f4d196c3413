// The incident view's shapes: what the server gathers from its memory (IncidentInput) and what
// the page shows (IncidentView). Plain data, times in ms since the epoch; decisions are typed
// codes, the sentences are made from them (text.ts), never parsed back.
import type { EndpointSliceView } from '../console/endpoints';
import type { ServiceImpact } from './services';
import type { NodeView, PodView } from '../console/protocol.js';
import type { WorkloadView } from '../console/views.js';
import type { Phase } from '../fencing/types.js';
import type { NodeDisplayState } from '../console/ui/states.js';
import type { Risk } from '../volumes/rwoTypes.js';
import type { SelectorTerm } from '../kube/nodeSelector.js';
import type { NodeRoom } from '../console/views.js';
import type { IncidentCard } from './record.js';

/** One NodeFence as the incident view needs it. */
export interface FenceGlance {
  name: string;
  node: string;
  policy: string;
  phase: Phase;
  manual: boolean;
  nodeUid?: string;
  approvedBy?: string;
  cancelRequestedBy?: string;
  /** its policy is paused: the fence is held in Detected, not counting down */
  paused?: boolean;
  /** ms: when the fence may run (the warning window's end), once the fencing controller writes it */
  fenceAt?: number;
  /** ms: the current phase's start (its last step) */
  phaseSince?: number;
  /** ms: a running agent attempt's start, and the policy's timeout for it */
  attemptStartedAt?: number;
  timeoutMs?: number;
}

/** A node a policy will fence that has no NodeFence yet (the warning window, H2's `upcoming`). */
export interface UpcomingFence {
  node: string;
  policy: string;
  fenceAt: number;
  paused: boolean;
}

export interface FencingInput {
  /** false: no fencing controller on this cluster */
  enabled: boolean;
  /** nodes some FencePolicy selects ('all': every node) */
  covered: ReadonlySet<string> | 'all';
  fences: FenceGlance[];
  /** unhealthy nodes whose fence the controller holds (the budget, a person's approval) */
  held: { node: string; reason: 'budget' | 'approval' | 'paused'; why: string }[];
  upcoming: UpcomingFence[];
  /** each readable policy's budget now (lib/fencing/budget), for the headline's margin */
  budgets?: BudgetGlance[];
}

export interface BudgetGlance {
  policy: string;
  paused: boolean;
  selected: number;
  unhealthy: number;
  maxUnhealthy: number;
}

/** A PodProtector's counts (the webhook's floor). */
export interface ProtectorGlance {
  key: string;
  minAvailable: number;
  aggregated: number;
  estimated: number;
  dangling: boolean;
}

/** One RWO volume's risk, from the Volumes page's rows. */
export interface VolumeGlance {
  pv: string;
  claim?: { namespace: string; name: string };
  risk: Risk;
  exclusive: boolean;
  attachments: {
    name: string;
    node: string;
    attached: boolean;
    detaching: boolean;
    forceDetachAt?: number;
  }[];
}

/** How current each watch of the server's cache is. */
export interface WatchActivity {
  kind: string;
  synced: boolean;
  /** ms: since when the watch has been down (not synced) */
  downSince?: number;
  /** ms: the last list, event or bookmark it received */
  lastEventAt?: number;
}

export interface IncidentInput {
  now: number;
  nodes: NodeView[];
  pods: PodView[];
  /** StatefulSets and Deployments (ReplicaSets are counted through their Deployment) */
  workloads: WorkloadView[];
  protectors: ProtectorGlance[];
  fencing: FencingInput;
  volumes: VolumeGlance[];
  watches: WatchActivity[];
  /** the EndpointSlices: which Services lost ready endpoints (services.ts) */
  services?: EndpointSliceView[];
  /** the nodes' heartbeat interval (Lease renewals), 10 s by Kubernetes' default */
  heartbeatIntervalMs?: number;
  /** the nodes' labels and allocatable, and the volumes only some nodes reach (capacity.ts) */
  placement?: PlacementInput;
}

export const SITUATION_KEYS = [
  'nodesNotReady',
  'nodesSuspect',
  'podsOnFailedNodes',
  'workloadsBelowDesired',
  'protectorsAtFloor',
  'fencesPending',
  'fencesInProgress',
  'fencesAwaitingApproval',
  'fencesHeldByBudget',
  'volumesStuck',
  'volumesSplitBrainRisk',
] as const;
export type SituationKey = (typeof SITUATION_KEYS)[number];
export type Situation = Record<SituationKey, number>;

/** One sample of the situation, for the 5- and 15-minute changes. */
export interface SituationSample {
  at: number;
  counts: Situation;
}

/** A count's change: undefined when no sample is old enough to compare with. */
export interface Change {
  m5?: number;
  m15?: number;
}

export type StaleReason =
  | { code: 'watch-down'; kind: string; forMs: number }
  | { code: 'heartbeats-silent'; forMs: number }
  | { code: 'never-synced'; kind: string };

export interface Freshness {
  /** ms: how old the freshest picture of the cluster is (the newest watch delivery) */
  ageMs?: number;
  /** ms: the worst lag of a watch (down, or heartbeats late beyond their interval) */
  lagMs: number;
  stale: boolean;
  reasons: StaleReason[];
}

/** What has to hold before an action is safe; `met` says whether it holds now. */
export type PreconditionCode =
  | 'node-fenced'
  | 'fence-approved'
  | 'warning-window-over'
  | 'budget-allows-fencing'
  | 'policy-covers-node'
  | 'node-powered-off-confirmed'
  | 'replicas-above-floor'
  | 'node-back'
  | 'volume-released';

export interface Precondition {
  code: PreconditionCode;
  met: boolean;
  /** the object it is about, e.g. the node or the fence */
  subject?: string;
}

/** The guarded action (components/actions) that carries a next action out. */
export type GuardedTarget =
  | { action: 'forceDeletePod'; namespace: string; name: string }
  | { action: 'approveFence'; fence: string }
  | { action: 'cancelFence'; fence: string }
  | { action: 'fenceNode'; node: string }
  | { action: 'detachVolume'; attachment: string }
  | { action: 'removeOutOfServiceTaint'; node: string };

/** The safe next action for an at-risk item. */
export type NextAction =
  | { action: 'wait-for-fence'; node: string; fence?: string; fenceAt?: number; paused?: boolean }
  | { action: 'approve-fence'; node: string; fence: string }
  | { action: 'fence-node'; node: string; why: 'no-policy' | 'budget' | 'failed' | 'cancelled' }
  | { action: 'force-delete'; pod: { namespace: string; name: string } }
  | { action: 'detach'; attachment: string; pv: string }
  | { action: 'wait-for-replicas'; protector: string };

export type RiskKind =
  | 'statefulset-identity-stuck'
  | 'singleton-rwo-on-failed-node'
  | 'pod-on-failed-node'
  | 'volume-split-brain-risk'
  | 'volume-stuck'
  | 'zero-disruptions-allowed';

export interface AtRisk {
  /** stable key for the list */
  id: string;
  kinds: RiskKind[];
  /** higher first */
  impact: number;
  pod?: { namespace: string; name: string; uid: string; node?: string; terminating: boolean };
  workload?: { kind: string; namespace: string; name: string };
  protector?: string;
  /** the VolumeAttachment a volume row is about */
  attachment?: string;
  node?: string;
  volumes: string[];
  next: NextAction;
  preconditions: Precondition[];
  /** the guard's verdict on the direct action (force delete) from the cache's facts */
  guard?: { action: 'forceDeletePod'; safe: boolean };
  /** the guarded action the row's button opens (its dialog shows the live preconditions) */
  guarded?: GuardedTarget;
}

/** What a person should do next about a failed node. */
export type HumanStep =
  | { step: 'wait-for-fence'; fence?: string; fenceAt?: number; phase?: Phase; paused?: boolean }
  | { step: 'approve-fence'; fence: string }
  | { step: 'budget-holds-fence'; why: string }
  | { step: 'fence-manually'; why: 'no-policy' | 'failed' | 'cancelled' }
  | { step: 'power-on-or-repair'; removeTaint: boolean }
  | { step: 'remove-out-of-service-taint' }
  | { step: 'wait-for-heartbeat' };

export interface Timeout {
  kind: 'fence-at' | 'fence-attempt' | 'force-detach';
  at: number;
  subject?: string;
}

export interface Remediation {
  node: string;
  state: NodeDisplayState;
  /** ms: since when it is in this state (the Ready condition's last transition) */
  since?: number;
  lastHeartbeat?: number;
  fence?: {
    name: string;
    policy: string;
    phase: Phase;
    fenceAt?: number;
    held?: 'budget' | 'approval' | 'paused';
    paused?: boolean;
  };
  upcoming?: UpcomingFence;
  outOfService: boolean;
  /** VolumeAttachments still naming the node */
  volumeAttachments: { name: string; pv?: string; detaching: boolean }[];
  pods: number;
  nextTimeout?: Timeout;
  next: HumanStep;
}

export interface IncidentView {
  /** the open Incident, else the one resolved within the last hour (lib/incident/record.ts) */
  incident?: IncidentCard;
  now: number;
  /** the one sentence a commander reads first (headline.ts) */
  headline: Headline;
  situation: Situation;
  changes: Record<SituationKey, Change>;
  freshness: Freshness;
  atRisk: AtRisk[];
  /** at-risk items beyond the list's length */
  atRiskMore: number;
  remediation: Remediation[];
  /** replicas one node, rack or zone failure would take together (after recovery, say) */
  spread: SpreadWarning[];
  /** each Service with endpoints not ready, the worst first (services.ts) */
  services: ServiceImpact[];
  /** Services beyond that list */
  servicesMore: number;
  /** room per zone, and where each stuck workload's replacement can start (capacity.ts) */
  capacity?: Capacity;
  /** true when nothing is unhealthy: the calm state */
  calm: boolean;
}

// ---- the headline (headline.ts) and placement (spread.ts): here, as IncidentView holds them

export interface RackRollup {
  rack: string;
  nodes: number;
  down: number;
}

export interface ZoneRollup {
  zone: string;
  nodes: number;
  down: number;
  racks: RackRollup[];
}

export interface WorkloadShort {
  kind: string;
  namespace: string;
  name: string;
  ready: number;
  desired: number;
}

export interface Headline {
  /** every zone, by name; nodes with no zone label under "" */
  zones: ZoneRollup[];
  /** workloads below their desired replicas, the worst (lowest ready share) first */
  workloads: WorkloadShort[];
  fences: {
    /** announced or detected, counting down (not held by a paused policy) */
    announced: number;
    /** ms: when the soonest of them may run */
    nextAt?: number;
    /** an agent running, or the node being released */
    inProgress: number;
    /** held by the budget or a paused policy */
    held: number;
  };
  /** the tightest budget of the policies that select nodes: how many more losses before fencing stops */
  budget?: { policy: string; margin: number; unhealthy: number; maxUnhealthy: number; selected: number };
}

export type SpreadCode = 'same-node' | 'same-rack' | 'same-zone';

export interface SpreadWarning {
  workload: { kind: string; namespace: string; name: string };
  code: SpreadCode;
  /** the node, rack or zone they share */
  where: string;
  /** the replicas there, by name, and how many ready replicas the workload has in all */
  pods: string[];
  ready: number;
  /** the pod to evict to rebalance: the newest of those sharing */
  evict: { namespace: string; name: string };
  /** evicting is safe only while the workload is at full strength (ready = desired) */
  fullStrength: boolean;
}

// ---- capacity (capacity.ts): here, as IncidentInput and IncidentView hold them

/** A PersistentVolume that only some nodes reach, and the claim bound to it. */
export interface VolumePin {
  pv: string;
  claim: { namespace: string; name: string };
  terms: SelectorTerm[];
}

export interface PlacementInput {
  rooms: NodeRoom[];
  pins: VolumePin[];
}

export interface Amount {
  free: number;
  total: number;
}

export interface ZoneCapacity {
  zone: string;
  nodes: number;
  /** Ready and schedulable: where a pod can start now */
  up: number;
  milliCpu?: Amount;
  memory?: Amount;
  pods?: Amount;
}

/** Why a node cannot take the replacement, in the scheduler's filter order. */
export type UnfitCode = 'node-affinity' | 'taint' | 'volume-node-affinity' | 'insufficient-resources';

export interface Replacement {
  workload: { kind: string; namespace: string; name: string };
  /** its pods on failed nodes, by name */
  stuck: string[];
  requests?: { milliCpu: number; memory: number };
  /** zones with a node that can take one now, and how many nodes there can */
  fits: { zone: string; nodes: number }[];
  /** when none can: how many up nodes each filter ruled out (the first that failed on each) */
  unfit: Partial<Record<UnfitCode, number>>;
  /** the zones its volumes' node affinity admits (any node state), when a volume pins it */
  volumeZones?: string[];
}

export interface Capacity {
  zones: ZoneCapacity[];
  replacements: Replacement[];
  /** replacements beyond the list */
  more: number;
}
