// The console bench's cluster: bench/fixtures.ts's nodes and pods, given what the map
// groups and colours by (zone and rack labels, owners, a Lease per node). Pod i runs on
// node i % nodes, so each node holds pods/nodes of them and pod i is the
// (floor(i / nodes) + 1)-th pod of its node: the load generator relies on that.
import { nodeBody, podBody, podStatusPatch } from '../fixtures.js';

export interface Shape {
  nodes: number;
  pods: number;
  namespaces: number;
  /** nodes per rack (rack label palisade.dev/rack, as lib/kube/wellKnown.ts names it) */
  rackSize: number;
}

export const ZONES = ['zone-a', 'zone-b', 'zone-c'];
/** pods per workload; every WORKLOAD_STS_EVERY-th workload is a StatefulSet, the rest ReplicaSets */
export const WORKLOAD_PODS = 100;
const WORKLOAD_STS_EVERY = 10;
export const LEASE_NS = 'kube-node-lease';

export const namespaceOf = (s: Shape, w: number) => `team-${String(w % s.namespaces).padStart(2, '0')}`;

export interface Workload {
  kind: 'ReplicaSet' | 'StatefulSet';
  namespace: string;
  name: string;
}

export function workload(s: Shape, w: number): Workload {
  const kind = w % WORKLOAD_STS_EVERY === WORKLOAD_STS_EVERY - 1 ? 'StatefulSet' : 'ReplicaSet';
  const name = kind === 'StatefulSet' ? `db-${w}` : `web-${w}-${(w * 7919).toString(16).padStart(6, '0')}`;
  return { kind, namespace: namespaceOf(s, w), name };
}

export const workloadPath = (w: Workload) =>
  `/apis/apps/v1/namespaces/${w.namespace}/${w.kind === 'StatefulSet' ? 'statefulsets' : 'replicasets'}`;

/** A ReplicaSet or StatefulSet as a controller would have created it (no controllers run here). */
export function workloadBody(w: Workload): string {
  const labels = { app: w.name };
  const template = {
    metadata: { labels },
    spec: { containers: [{ name: 'app', image: `registry.example.com/team/${w.name}:1.0.0` }] },
  };
  const spec: Record<string, unknown> = {
    replicas: WORKLOAD_PODS,
    selector: { matchLabels: labels },
    template,
  };
  if (w.kind === 'StatefulSet') spec.serviceName = w.name;
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: w.kind,
    metadata: { name: w.name, namespace: w.namespace, labels },
    spec,
  });
}

export function nodeName(i: number): string {
  return `node-${String(i).padStart(4, '0')}`;
}

export function rackOf(s: Shape, i: number): string {
  const zone = ZONES[i % ZONES.length];
  return `${zone.slice(-1)}${Math.floor(i / ZONES.length / s.rackSize) + 1}`;
}

/** bench/fixtures.ts's node, named and labelled as the map expects. */
export function consoleNodeBody(s: Shape, i: number): string {
  const node = JSON.parse(nodeBody(i));
  node.metadata.name = nodeName(i);
  node.metadata.labels['kubernetes.io/hostname'] = nodeName(i);
  node.metadata.labels['topology.kubernetes.io/zone'] = ZONES[i % ZONES.length];
  node.metadata.labels['palisade.dev/rack'] = rackOf(s, i);
  return JSON.stringify(node);
}

export const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

export function leaseBody(i: number, now: number): string {
  return JSON.stringify({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: nodeName(i), namespace: LEASE_NS },
    spec: { holderIdentity: nodeName(i), leaseDurationSeconds: 40, renewTime: microTime(now) },
  });
}

export const renewPatch = (now: number) => JSON.stringify({ spec: { renewTime: microTime(now) } });

export interface PodRef {
  namespace: string;
  name: string;
  node: string;
}

export function podRef(s: Shape, i: number): PodRef {
  const w = workload(s, Math.floor(i / WORKLOAD_PODS));
  const ordinal = i % WORKLOAD_PODS;
  const suffix =
    w.kind === 'StatefulSet' ? String(ordinal) : ((i * 2654435761) >>> 0).toString(36).slice(0, 5);
  return { namespace: w.namespace, name: `${w.name}-${suffix}`, node: nodeName(i % s.nodes) };
}

/** bench/fixtures.ts's pod, bound to its node and owned (controller ref) by its workload. */
export function consolePodBody(s: Shape, i: number, ownerUid: string): string {
  const ref = podRef(s, i);
  const w = workload(s, Math.floor(i / WORKLOAD_PODS));
  const pod = JSON.parse(podBody(i, { namespace: ref.namespace, nodes: s.nodes }));
  pod.metadata.name = ref.name;
  pod.metadata.labels.app = w.name;
  pod.metadata.ownerReferences = [
    {
      apiVersion: 'apps/v1',
      kind: w.kind,
      name: w.name,
      uid: ownerUid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  pod.spec.nodeName = ref.node;
  return JSON.stringify(pod);
}

/** The kubelet's status write: Running and Ready (bench/fixtures.ts), or Running and not Ready. */
export function podStatus(s: Shape, i: number, ready: boolean): string {
  const body = JSON.parse(podStatusPatch(i, { namespace: '', nodes: s.nodes }));
  if (ready) return JSON.stringify(body);
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const c of body.status.conditions)
    if (c.type === 'Ready' || c.type === 'ContainersReady')
      Object.assign(c, { status: 'False', reason: 'ContainersNotReady', lastTransitionTime: at });
  body.status.containerStatuses[0].ready = false;
  return JSON.stringify(body);
}
