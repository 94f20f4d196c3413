// The contract between Palisade's server and its browser UI: the trimmed views the UI
// shows, and the socket.io protocol that keeps them live. Pure types and helpers: both
// sides import this file, so a change here is a change to the wire.
import type { SelectorTerm } from '../kube/nodeSelector.js';
import type { Toleration } from '../kube/tolerations.js';

/** Every query key and room carries the cluster it is about. */
export type ClusterId = string;

export type NodeState = 'Ready' | 'NotReady' | 'Unknown';

export interface NodeView {
  name: string;
  zone: string;
  rack: string;
  ready: NodeState;
  /** when the Ready condition last changed (ms since epoch) */
  readySince?: number;
  /** the later of the Lease renewTime and the Ready heartbeat (ms since epoch) */
  lastHeartbeat?: number;
  unschedulable: boolean;
  taints: { key: string; value?: string; effect: string }[];
  conditions: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: number;
  }[];
  capacity: { cpu?: string; memory?: string; pods?: string };
  resourceVersion: string;
}

export type PodState = 'Pending' | 'Running' | 'Ready' | 'Terminating' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodView {
  uid: string;
  namespace: string;
  name: string;
  node?: string;
  state: PodState;
  phase?: string;
  ready: boolean;
  /** ms since epoch */
  createdAt?: number;
  deletionTimestamp?: number;
  deletionGracePeriodSeconds?: number;
  terminationGracePeriodSeconds?: number;
  owner?: { kind: string; name: string };
  /** PersistentVolumeClaim names */
  claims: string[];
  podIP?: string;
  resourceVersion: string;
  /** effective requests as the scheduler counts them (millicores, bytes), when any */
  requests?: { milliCpu: number; memory: number };
  /** where it may run, when it says more than "anywhere" (the incident view's capacity) */
  constraints?: PodConstraints;
}

/** A pod's own scheduling constraints: nodeSelector, required node affinity, tolerations. */
export interface PodConstraints {
  nodeSelector?: Record<string, string>;
  /** requiredDuringSchedulingIgnoredDuringExecution's terms (ORed) */
  affinity?: SelectorTerm[];
  /** its tolerations but the two every pod gets (not-ready and unreachable, NoExecute) */
  tolerations?: Toleration[];
}

export type Kind = 'nodes' | 'pods';

/** Room name for one kind in one cluster. */
export function room(cluster: ClusterId, kind: Kind): string {
  return `${cluster}/${kind}`;
}

export interface Snapshot<T> {
  cluster: ClusterId;
  kind: Kind;
  /**
   * which server's numbering seq belongs to: replicas number their feeds independently, so a
   * client that reconnects to another replica must not resume from a seq of the one it left
   */
  epoch?: string;
  /** monotonically increasing per (cluster, kind) on the server; resume from it */
  seq: number;
  items: T[];
}

export interface Delta<T> {
  cluster: ClusterId;
  kind: Kind;
  /** seq after applying this delta; a client that missed one asks for a snapshot */
  seq: number;
  fromSeq: number;
  upserts: T[];
  /** keys (node name, or pod "namespace/name") removed */
  deletes: string[];
}

/** client -> server */
export interface SubscribeRequest {
  cluster: ClusterId;
  kind: Kind;
  /** last seq the client applied: the server sends only what came after, if it still can */
  resumeFrom?: number;
  /** the epoch of the snapshot resumeFrom counts from: another server's sends a snapshot */
  epoch?: string;
}

export const SocketEvents = {
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  snapshot: 'snapshot',
  delta: 'delta',
  health: 'health',
} as const;

export interface ClusterHealth {
  cluster: ClusterId;
  /** per informer: synced, restarts, last error */
  informers: { kind: string; synced: boolean; restarts: number; lastError?: string }[];
  /** true when the cluster is Palisade's embedded cluster (ground truth available) */
  embedded: boolean;
  mode: 'normal' | 'read-only' | 'protected';
}

export function podKey(p: Pick<PodView, 'namespace' | 'name'>): string {
  return `${p.namespace}/${p.name}`;
}

// ---- the embedded cluster's ground truth (simulation only)

/** client -> server: follow a cluster's ghosts, or one pod's kubelet termination steps */
export const SimEvents = {
  watchGhosts: 'watchGhosts',
  unwatchGhosts: 'unwatchGhosts',
  ghosts: 'ghosts',
  watchTermination: 'watchTermination',
  unwatchTermination: 'unwatchTermination',
  terminationStep: 'terminationStep',
} as const;

export interface GhostsMessage {
  cluster: ClusterId;
  /** false until the ground truth has been read once */
  synced: boolean;
  /** running processes in the ground truth */
  processes: number;
  ghosts: import('./ghosts.js').Ghost[];
  /** ghosts left out of `ghosts` to keep the message small */
  omitted: number;
}

/** One step of a pod's termination as the embedded cluster's kubelet recorded it. */
export interface KubeletStep {
  podUid: string;
  podName: string;
  namespace: string;
  node: string;
  step: string;
  at: number;
  detail?: string;
}

export interface TerminationStepMessage extends KubeletStep {
  cluster: ClusterId;
}

export const ghostsRoom = (cluster: ClusterId) => `${cluster}/ghosts`;
export const terminationRoom = (cluster: ClusterId, podUid: string) => `${cluster}/termination/${podUid}`;
