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
import type { HolderRecord } from '../../lib/instanceIds/holders.js';
import { fenceFacts, nodeFacts } from '../actions/live.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { SupervisedInformer } from '../kube/informer.js';

interface PodFacts extends HolderPod {
  key: string;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);
/** how many departures are kept (the oldest go first): a day of churn on a busy cluster */
const MAX_DEPARTURES = 50_000;

function podFacts(p: k8s.V1Pod): PodFacts {
  const m = p.metadata ?? {};
  return {
    key: `${m.namespace}/${m.name}`,
    name: m.name ?? '',
    ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
    ...(p.status?.phase ? { phase: p.status.phase } : {}),
    ...(m.deletionTimestamp ? { deletionTimestamp: String(m.deletionTimestamp) } : {}),
  };
}

export class HolderFactsSource {
  private readonly departures = new Map<string, Departure>();
  readonly nodes: SupervisedInformer<k8s.V1Node, NodeFacts>;
  readonly fences: SupervisedInformer<k8s.KubernetesObject, FenceFacts | undefined>;
  readonly pods: SupervisedInformer<k8s.V1Pod, PodFacts>;

  constructor(conn: ClusterConnection) {
    const reg = conn.registry;
    const custom = reg.kc.makeApiClient(k8s.CustomObjectsApi);
    this.nodes = reg.informer<k8s.V1Node, NodeFacts>({
      kind: 'nodes',
      path: '/api/v1/nodes',
      list: (p) => conn.core.listNode(p),
      project: nodeFacts,
    });
    this.pods = reg.informer<k8s.V1Pod, PodFacts>({
      kind: 'pods',
      path: '/api/v1/pods',
      list: (p) => conn.core.listPodForAllNamespaces(p),
      project: podFacts,
    });
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
    for (const i of [this.nodes, this.pods, this.fences]) i.start();
  }

  private departed(p: PodFacts) {
    const node = p.nodeName ? this.nodes.get(p.nodeName) : undefined;
    // never scheduled: it ran nowhere; else its kubelet must have reported the end from a Ready node
    const confirmed = !p.nodeName || (!!p.phase && TERMINAL.has(p.phase) && node?.ready === 'True');
    this.departures.delete(p.key);
    this.departures.set(p.key, { confirmed, ...(p.nodeName ? { nodeName: p.nodeName } : {}) });
    if (this.departures.size > MAX_DEPARTURES) {
      const oldest = this.departures.keys().next().value;
      if (oldest !== undefined) this.departures.delete(oldest);
    }
  }

  /** How the pod left the API, if this replica saw it go (and it has not come back since). */
  departure(namespace: string, pod: string): Departure | undefined {
    const key = `${namespace}/${pod}`;
    return this.pods.has(key) ? undefined : this.departures.get(key);
  }

  /** The verdict from the watches alone (the page, the collector's candidates); the CAS reads live. */
  judgeCached(namespace: string, pod: string, record?: HolderRecord): StopVerdict {
    const p = this.pods.get(`${namespace}/${pod}`);
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
