// What Palisade needs to know to judge whether an instance ID's holder stopped for sure
// (lib/guard/stopped.ts): the holder's pod, its node (Ready? which boot?) and the node's
// NodeFence — read live by the compare-and-swap before it drops anything — and how the pod left
// the API, which only a watch can tell: a pod whose last state was a terminal phase while its
// node was Ready was removed by its kubelet's own final delete (the kubelet reports the end,
// then deletes with grace 0); a pod that vanished while running (force-deleted) or while its
// node was not Ready was not confirmed by anyone. One per cluster connection, from the cluster's
// shared watches; every replica keeps its own (it sees every deletion while it runs).
import * as k8s from '@kubernetes/client-node';
import { FENCE_PLURAL, GROUP, parseNodeFence, VERSION } from '../../lib/fencing/types.js';
import { type Departure, type HolderPod, holderStopped, type StopVerdict } from '../../lib/guard/stopped.js';
import type { FenceFacts, NodeFacts } from '../../lib/guard/types.js';
import type { PodView } from '../../lib/console/protocol.js';
import type { HolderRecord } from '../../lib/instanceIds/holders.js';
import { fenceFacts, nodeFacts } from '../actions/live.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { SupervisedInformer } from '../kube/informer.js';

const TERMINAL = new Set(['Succeeded', 'Failed']);
/** how many departures are kept (the oldest go first): a day of churn on a busy cluster */
const MAX_DEPARTURES = 50_000;

/** The console's trimmed pod view as the rule's facts (no second copy of every pod is kept). */
function podFacts(p: PodView): HolderPod {
  return {
    name: p.name,
    ...(p.node ? { nodeName: p.node } : {}),
    ...(p.phase ? { phase: p.phase } : {}),
    ...(p.deletionTimestamp !== undefined ? { deletionTimestamp: p.deletionTimestamp } : {}),
  };
}

export type DepartureListener = (namespace: string, pod: string, d: Departure) => void;

export class HolderFactsSource {
  private readonly departures = new Map<string, Departure>();
  private readonly listeners: DepartureListener[] = [];
  readonly nodes: SupervisedInformer<k8s.V1Node, NodeFacts>;
  readonly fences: SupervisedInformer<k8s.KubernetesObject, FenceFacts | undefined>;
  private readonly pods: SupervisedInformer<k8s.V1Pod, PodView>;

  constructor(conn: ClusterConnection) {
    const reg = conn.registry;
    const custom = reg.kc.makeApiClient(k8s.CustomObjectsApi);
    this.nodes = reg.informer<k8s.V1Node, NodeFacts>({
      kind: 'nodes',
      path: '/api/v1/nodes',
      list: (p) => conn.core.listNode(p),
      project: nodeFacts,
    });
    // the console's own pod watch and views: their last state is what a departure is judged by
    this.pods = conn.informers.pods;
    this.fences = reg.informer<k8s.KubernetesObject, FenceFacts | undefined>({
      kind: FENCE_PLURAL,
      path: `/apis/${GROUP}/${VERSION}/${FENCE_PLURAL}`,
      list: (p) =>
        custom.listClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: FENCE_PLURAL,
          ...p,
        }) as never,
      // a NodeFence Palisade cannot read is never taken as proof of anything
      project: (raw) => {
        const r = parseNodeFence(raw);
        return r.ok ? fenceFacts(r.value) : undefined;
      },
    });
    this.pods.on({ delete: (p) => this.departed(p) });
    for (const i of [this.nodes, this.fences]) i.start();
  }

  private departed(p: PodView) {
    const node = p.node ? this.nodes.get(p.node) : undefined;
    // never scheduled: it ran nowhere; else its kubelet must have reported the end from a Ready node
    const confirmed = !p.node || (!!p.phase && TERMINAL.has(p.phase) && node?.ready === 'True');
    const key = `${p.namespace}/${p.name}`;
    const d: Departure = { confirmed, ...(p.node ? { nodeName: p.node } : {}) };
    this.departures.delete(key);
    this.departures.set(key, d);
    for (const l of this.listeners) l(p.namespace, p.name, d);
    if (this.departures.size > MAX_DEPARTURES) {
      const oldest = this.departures.keys().next().value;
      if (oldest !== undefined) this.departures.delete(oldest);
    }
  }

  /** Told of every pod that leaves the API, and whether its kubelet confirmed the end. */
  onDeparture(l: DepartureListener) {
    this.listeners.push(l);
  }

  /** How the pod left the API, if this replica saw it go (and it has not come back since). */
  departure(namespace: string, pod: string): Departure | undefined {
    const key = `${namespace}/${pod}`;
    return this.pods.has(key) ? undefined : this.departures.get(key);
  }

  /** The verdict from the watches alone (the page, the collector's candidates); the CAS reads live. */
  judgeCached(namespace: string, pod: string, record?: HolderRecord): StopVerdict {
    const view = this.pods.get(`${namespace}/${pod}`);
    const p = view && podFacts(view);
    const nodeName = p?.nodeName ?? this.departure(namespace, pod)?.nodeName ?? record?.node;
    const node = nodeName ? this.nodes.get(nodeName) : undefined;
    return holderStopped({
      name: pod,
      pod: p,
      departure: p ? undefined : this.departure(namespace, pod),
      nodeName: record?.node,
      bootId: record?.bootID,
      node,
      fence: nodeName ? this.fences.get(nodeName) : undefined,
    });
  }
}

const sources = new WeakMap<ClusterConnection, HolderFactsSource>();

/** The connection's source, made (and its watches started) on first use. */
export function holderFactsOf(conn: ClusterConnection): HolderFactsSource {
  let s = sources.get(conn);
  if (!s) sources.set(conn, (s = new HolderFactsSource(conn)));
  return s;
}
