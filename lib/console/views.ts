// Pure functions that turn Kubernetes objects into the trimmed views the console keeps
// in memory and sends to browsers. Only what the UI reads survives: no managedFields,
// no specs but a pod's requests and scheduling constraints and a volume's node affinity (the
// incident view's capacity), no annotations but a workload's instance-ID map. client-node hands out Date
// objects from typed lists but strings from watch events, so every time goes through toMillis.
import {
  INSTANCE_ID_NODES_ANNOTATION,
  INSTANCE_IDS_ANNOTATION,
  INSTANCE_IDS_LABEL,
} from '../instanceIds/types.js';
import type * as k8s from '@kubernetes/client-node';
import { toMillis } from '../kube/conditions.js';
import { LABEL_RACK, LABEL_ZONE } from '../kube/wellKnown.js';
import type { SelectorTerm } from '../kube/nodeSelector.js';
import { milliValue, podRequests, wholeValue } from '../kube/resources.js';
import type { NodeState, NodeView, PodConstraints, PodState, PodView } from './protocol.js';

const LEGACY_ZONE = 'failure-domain.beta.kubernetes.io/zone';

/** The later of two optional times (ms): how recently a kubelet was heard from. */
export function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

function nodeState(status: string | undefined): NodeState {
  if (status === 'True') return 'Ready';
  if (status === 'False') return 'NotReady';
  return 'Unknown';
}

/** What a node offers a pod, for the incident view's capacity: its labels and allocatable. */
export interface NodeRoom {
  name: string;
  labels: Record<string, string>;
  /** millicores, bytes, pod slots; absent when the node does not say */
  allocatable: { milliCpu?: number; memory?: number; pods?: number };
}

export function nodeRoom(node: k8s.V1Node): NodeRoom {
  const a = node.status?.allocatable ?? node.status?.capacity ?? {};
  const allocatable: NodeRoom['allocatable'] = {};
  if (a.cpu !== undefined) allocatable.milliCpu = milliValue(a.cpu);
  if (a.memory !== undefined) allocatable.memory = wholeValue(a.memory);
  if (a.pods !== undefined) allocatable.pods = wholeValue(a.pods);
  return { name: node.metadata?.name ?? '', labels: { ...(node.metadata?.labels ?? {}) }, allocatable };
}

/** The Ready condition's own heartbeat, kept apart so a Lease renewal can be folded in later. */
export function readyHeartbeat(node: k8s.V1Node): number | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return toMillis(ready?.lastHeartbeatTime);
}

export function nodeView(node: k8s.V1Node, leaseRenewMs?: number): NodeView {
  const labels = node.metadata?.labels ?? {};
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const capacity = node.status?.capacity ?? {};
  return {
    name: node.metadata?.name ?? '',
    zone: labels[LABEL_ZONE] ?? labels[LEGACY_ZONE] ?? '',
    rack: labels[LABEL_RACK] ?? '',
    ready: nodeState(ready?.status),
    readySince: toMillis(ready?.lastTransitionTime),
    lastHeartbeat: latest(toMillis(ready?.lastHeartbeatTime), leaseRenewMs),
    unschedulable: node.spec?.unschedulable === true,
    taints: (node.spec?.taints ?? []).map((t) => ({
      key: t.key,
      ...(t.value ? { value: t.value } : {}),
      effect: t.effect,
    })),
    conditions: conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: toMillis(c.lastTransitionTime),
    })),
    capacity: { cpu: capacity.cpu, memory: capacity.memory, pods: capacity.pods },
    resourceVersion: node.metadata?.resourceVersion ?? '',
  };
}

/** A node view with a newer Lease renewal folded into its heartbeat. */
export function withLease(view: NodeView, ownHeartbeat: number | undefined, leaseRenewMs?: number): NodeView {
  const lastHeartbeat = latest(ownHeartbeat, leaseRenewMs);
  return lastHeartbeat === view.lastHeartbeat ? view : { ...view, lastHeartbeat };
}

function isReady(pod: k8s.V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** What `kubectl get` would make of the pod, reduced to the states the console colours. */
export function podState(pod: k8s.V1Pod): PodState {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  switch (pod.status?.phase) {
    case 'Pending':
      return 'Pending';
    case 'Running':
      return isReady(pod) ? 'Ready' : 'Running';
    case 'Succeeded':
      return 'Succeeded';
    case 'Failed':
      return 'Failed';
    default:
      return pod.status?.phase ? 'Unknown' : 'Pending';
  }
}

/** The controlling owner (the one the garbage collector and the UI group by). */
export function controllerOf(meta: k8s.V1ObjectMeta | undefined): { kind: string; name: string } | undefined {
  const ref = meta?.ownerReferences?.find((r) => r.controller) ?? meta?.ownerReferences?.[0];
  return ref ? { kind: ref.kind, name: ref.name } : undefined;
}

export function podView(pod: k8s.V1Pod): PodView {
  const m = pod.metadata ?? {};
  const claims = (pod.spec?.volumes ?? [])
    .map((v) => v.persistentVolumeClaim?.claimName)
    .filter((c): c is string => !!c);
  const owner = controllerOf(m);
  const view: PodView = {
    uid: m.uid ?? '',
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    state: podState(pod),
    ready: isReady(pod),
    claims,
    resourceVersion: m.resourceVersion ?? '',
  };
  // optional fields only when present, so views compare and serialise compactly
  if (pod.spec?.nodeName) view.node = pod.spec.nodeName;
  if (pod.status?.phase) view.phase = pod.status.phase;
  if (m.creationTimestamp) view.createdAt = toMillis(m.creationTimestamp);
  if (m.deletionTimestamp) view.deletionTimestamp = toMillis(m.deletionTimestamp);
  if (m.deletionGracePeriodSeconds !== undefined)
    view.deletionGracePeriodSeconds = m.deletionGracePeriodSeconds;
  if (pod.spec?.terminationGracePeriodSeconds !== undefined)
    view.terminationGracePeriodSeconds = pod.spec.terminationGracePeriodSeconds;
  if (owner) view.owner = owner;
  if (pod.status?.podIP) view.podIP = pod.status.podIP;
  const requests = podRequests(pod.spec);
  if (requests.milliCpu > 0 || requests.memory > 0) view.requests = requests;
  const constraints = constraintsOf(pod.spec);
  if (constraints) view.constraints = constraints;
  return view;
}

/** the NoExecute tolerations the DefaultTolerationSeconds admission plugin gives every pod */
const DEFAULT_TOLERATIONS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);

function constraintsOf(spec: k8s.V1PodSpec | undefined): PodConstraints | undefined {
  const c: PodConstraints = {};
  if (spec?.nodeSelector && Object.keys(spec.nodeSelector).length) c.nodeSelector = { ...spec.nodeSelector };
  const terms =
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms?.length) c.affinity = terms;
  const tolerations = (spec?.tolerations ?? []).filter(
    (t) => !(t.effect === 'NoExecute' && t.key && DEFAULT_TOLERATIONS.has(t.key) && t.operator === 'Exists'),
  );
  if (tolerations.length) c.tolerations = tolerations;
  return Object.keys(c).length ? c : undefined;
}

// ---------------------------------------------------------------------------
// Views the server keeps for detail queries and later screens (not on the wire yet).

export interface LeaseView {
  name: string;
  holder?: string;
  renewTime?: number;
}

export function leaseView(l: k8s.V1Lease): LeaseView {
  return {
    name: l.metadata?.name ?? '',
    holder: l.spec?.holderIdentity,
    renewTime: toMillis(l.spec?.renewTime as Date | string | undefined),
  };
}

export interface VolumeView {
  name: string;
  namespace?: string;
  phase?: string;
  accessModes: string[];
  /** PV: the claim bound to it ("ns/name"); PVC: the volume it is bound to */
  boundTo?: string;
  storageClass?: string;
  /** PV: the nodes that can reach it (spec.nodeAffinity.required's terms), when it says */
  affinity?: SelectorTerm[];
}

export function pvView(pv: k8s.V1PersistentVolume): VolumeView {
  const ref = pv.spec?.claimRef;
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  return {
    name: pv.metadata?.name ?? '',
    phase: pv.status?.phase,
    accessModes: pv.spec?.accessModes ?? [],
    boundTo: ref ? `${ref.namespace}/${ref.name}` : undefined,
    storageClass: pv.spec?.storageClassName,
    ...(terms?.length ? { affinity: terms } : {}),
  };
}

export function pvcView(pvc: k8s.V1PersistentVolumeClaim): VolumeView {
  return {
    name: pvc.metadata?.name ?? '',
    namespace: pvc.metadata?.namespace,
    phase: pvc.status?.phase,
    accessModes: pvc.spec?.accessModes ?? [],
    boundTo: pvc.spec?.volumeName || undefined,
    storageClass: pvc.spec?.storageClassName,
  };
}

export interface AttachmentView {
  name: string;
  pv?: string;
  node: string;
  attached: boolean;
  error?: string;
  /** ms since epoch: being deleted (a detach in progress, or stuck) */
  deletionTimestamp?: number;
  attachError?: string;
  detachError?: string;
}

export function attachmentView(va: k8s.V1VolumeAttachment): AttachmentView {
  return {
    name: va.metadata?.name ?? '',
    pv: va.spec?.source?.persistentVolumeName,
    node: va.spec?.nodeName ?? '',
    attached: va.status?.attached === true,
    error: va.status?.attachError?.message ?? va.status?.detachError?.message,
    deletionTimestamp: toMillis(va.metadata?.deletionTimestamp),
    attachError: va.status?.attachError?.message,
    detachError: va.status?.detachError?.message,
  };
}

export interface EventView {
  uid: string;
  namespace: string;
  /** the object it is about */
  involved: { kind?: string; namespace?: string; name?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  count: number;
  source?: string;
  /** ms since epoch: when it last happened */
  lastSeen?: number;
  /** ms since epoch: when it first happened (firstTimestamp), e.g. how long a Multi-Attach wait has lasted */
  firstSeen?: number;
  /** the console's own Events only: the Event's name and Palisade's seal (lib/guard/auditSeal.ts) */
  name?: string;
  seal?: string;
}

export function eventView(e: k8s.CoreV1Event): EventView {
  const io = e.involvedObject ?? {};
  const m = e.metadata ?? {};
  return {
    uid: m.uid ?? '',
    namespace: m.namespace ?? '',
    involved: { kind: io.kind, namespace: io.namespace, name: io.name, uid: io.uid },
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count ?? 1,
    source: e.source?.component ?? e.reportingComponent,
    lastSeen:
      toMillis(e.lastTimestamp) ?? toMillis(e.eventTime as Date | undefined) ?? toMillis(m.creationTimestamp),
    firstSeen: toMillis(e.firstTimestamp) ?? toMillis(e.eventTime as Date | undefined),
    // what the audit checks a console record by (kept for those Events only: memory)
    ...((e.source?.component ?? e.reportingComponent) === 'palisade-console'
      ? { name: m.name, seal: m.annotations?.['palisade.dev/seal'] }
      : {}),
  };
}

export interface WorkloadView {
  kind: 'StatefulSet' | 'Deployment' | 'ReplicaSet';
  namespace: string;
  name: string;
  uid: string;
  replicas: number;
  readyReplicas: number;
  owner?: { kind: string; name: string };
  /** the instance-ID map's annotation text (palisade.dev/instance-ids), when set */
  instanceIds?: string;
  /** where the map's holders ran (palisade.dev/instance-id-nodes), when set */
  instanceIdNodes?: string;
  /** labelled palisade.dev/instance-ids-enabled=true: its pods take instance IDs */
  instanceIdsEnabled?: true;
}

type Workload = k8s.V1StatefulSet | k8s.V1Deployment | k8s.V1ReplicaSet;

export function workloadView(kind: WorkloadView['kind'], w: Workload): WorkloadView {
  const m = w.metadata ?? {};
  const owner = controllerOf(m);
  return {
    kind,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    replicas: w.spec?.replicas ?? 1,
    readyReplicas: w.status?.readyReplicas ?? 0,
    ...(owner ? { owner } : {}),
    // not on ReplicaSets: kube-controller-manager copies a Deployment's annotations to them
    ...(kind !== 'ReplicaSet' && m.annotations?.[INSTANCE_IDS_ANNOTATION] !== undefined
      ? { instanceIds: m.annotations[INSTANCE_IDS_ANNOTATION] }
      : {}),
    ...(kind !== 'ReplicaSet' && m.annotations?.[INSTANCE_ID_NODES_ANNOTATION] !== undefined
      ? { instanceIdNodes: m.annotations[INSTANCE_ID_NODES_ANNOTATION] }
      : {}),
    ...(kind !== 'ReplicaSet' && m.labels?.[INSTANCE_IDS_LABEL] === 'true'
      ? { instanceIdsEnabled: true as const }
      : {}),
  };
}

// ---------------------------------------------------------------------------
// A pod's details, read live for the pod page (never cached): plain JSON, times in ms.

export interface PodConditionDetail {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: number;
}

export interface ContainerStatusDetail {
  name: string;
  ready: boolean;
  restartCount: number;
  state: 'waiting' | 'running' | 'terminated' | 'unknown';
  reason?: string;
  message?: string;
  exitCode?: number;
  startedAt?: number;
  finishedAt?: number;
}

export interface PodVolumeDetail {
  name: string;
  claim?: string;
}

export interface PodDetail {
  conditions: PodConditionDetail[];
  containerStatuses: ContainerStatusDetail[];
  volumes: PodVolumeDetail[];
}

function containerStatus(s: k8s.V1ContainerStatus): ContainerStatusDetail {
  const base = { name: s.name, ready: s.ready, restartCount: s.restartCount };
  const { running, waiting, terminated } = s.state ?? {};
  if (terminated)
    return {
      ...base,
      state: 'terminated',
      reason: terminated.reason,
      message: terminated.message,
      exitCode: terminated.exitCode,
      startedAt: toMillis(terminated.startedAt),
      finishedAt: toMillis(terminated.finishedAt),
    };
  if (running) return { ...base, state: 'running', startedAt: toMillis(running.startedAt) };
  if (waiting) return { ...base, state: 'waiting', reason: waiting.reason, message: waiting.message };
  return { ...base, state: 'unknown' };
}

export function podDetail(pod: k8s.V1Pod): PodDetail {
  return {
    conditions: (pod.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: toMillis(c.lastTransitionTime),
    })),
    containerStatuses: (pod.status?.containerStatuses ?? []).map(containerStatus),
    volumes: (pod.spec?.volumes ?? []).map((v) => ({
      name: v.name,
      ...(v.persistentVolumeClaim ? { claim: v.persistentVolumeClaim.claimName } : {}),
    })),
  };
}
