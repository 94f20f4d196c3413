// One cluster, one kubeconfig context: the supervised informers Palisade's console needs,
// feeding one ClusterCache of trimmed views, and the cluster's health as the UI shows it.
import * as k8s from '@kubernetes/client-node';
import type { ClusterHealth, ClusterId } from '../../lib/console/protocol.js';
import {
  attachmentView,
  eventView,
  leaseView,
  nodeRoom,
  nodeView,
  podView,
  pvcView,
  pvView,
  readyHeartbeat,
  workloadView,
} from '../../lib/console/views.js';
import { explainInformerError } from '../../lib/console/clusterProblems.js';
import type { ClusterMode } from '../config/schema.js';
import { endpointSliceView } from '../../lib/console/endpoints.js';
import { ClusterCache } from './cache.js';
import { EndpointTracker } from './endpoints.js';
import type { InfraEndpoint } from './infra.js';
import {
  type InformerSpec,
  InformerRegistry,
  type InformerTuning,
  type SupervisedInformer,
} from './informer.js';
import { type Logger, logger as rootLogger } from '../log.js';

export interface ClusterSpec {
  id: ClusterId;
  context: string;
  /** a KubeConfig whose current context is this cluster's */
  kc: k8s.KubeConfig;
  /** set when the cluster is Palisade's embedded one: its infrastructure control API */
  infra?: InfraEndpoint;
  /** from palisade.yaml (or --read-only): what Palisade may change on this cluster */
  mode?: ClusterMode;
  /** the cluster's force-detach wait, when known (the embedded cluster's infra file says it) */
  forceDetach?: { enabled: boolean; maxWaitMs: number };
}

type AnyInformer = SupervisedInformer<any, any>;

function specs(kc: k8s.KubeConfig) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const storage = kc.makeApiClient(k8s.StorageV1Api);
  const discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  const nodeLeases = 'kube-node-lease';
  return {
    nodes: {
      kind: 'nodes',
      path: '/api/v1/nodes',
      list: (p) => core.listNode(p),
      project: (n) => ({ view: nodeView(n), heartbeat: readyHeartbeat(n), room: nodeRoom(n) }),
    } satisfies InformerSpec<k8s.V1Node, unknown>,
    leases: {
      kind: 'leases',
      path: `/apis/coordination.k8s.io/v1/namespaces/${nodeLeases}/leases`,
      list: (p) => coordination.listNamespacedLease({ namespace: nodeLeases, ...p }),
      project: leaseView,
    } satisfies InformerSpec<k8s.V1Lease, unknown>,
    pods: {
      kind: 'pods',
      path: '/api/v1/pods',
      list: (p) => core.listPodForAllNamespaces(p),
      project: podView,
    } satisfies InformerSpec<k8s.V1Pod, unknown>,
    persistentVolumes: {
      kind: 'persistentvolumes',
      path: '/api/v1/persistentvolumes',
      list: (p) => core.listPersistentVolume(p),
      project: pvView,
    } satisfies InformerSpec<k8s.V1PersistentVolume, unknown>,
    persistentVolumeClaims: {
      kind: 'persistentvolumeclaims',
      path: '/api/v1/persistentvolumeclaims',
      list: (p) => core.listPersistentVolumeClaimForAllNamespaces(p),
      project: pvcView,
    } satisfies InformerSpec<k8s.V1PersistentVolumeClaim, unknown>,
    volumeAttachments: {
      kind: 'volumeattachments',
      path: '/apis/storage.k8s.io/v1/volumeattachments',
      list: (p) => storage.listVolumeAttachment(p),
      project: attachmentView,
    } satisfies InformerSpec<k8s.V1VolumeAttachment, unknown>,
    endpointSlices: {
      kind: 'endpointslices',
      path: '/apis/discovery.k8s.io/v1/endpointslices',
      list: (p) => discovery.listEndpointSliceForAllNamespaces(p),
      project: endpointSliceView,
    } satisfies InformerSpec<k8s.V1EndpointSlice, unknown>,
    events: {
      kind: 'events',
      path: '/api/v1/events',
      list: (p) => core.listEventForAllNamespaces(p),
      project: eventView,
    } satisfies InformerSpec<k8s.CoreV1Event, unknown>,
    statefulSets: {
      kind: 'statefulsets',
      path: '/apis/apps/v1/statefulsets',
      list: (p) => apps.listStatefulSetForAllNamespaces(p),
      project: (w) => workloadView('StatefulSet', w),
    } satisfies InformerSpec<k8s.V1StatefulSet, unknown>,
    deployments: {
      kind: 'deployments',
      path: '/apis/apps/v1/deployments',
      list: (p) => apps.listDeploymentForAllNamespaces(p),
      project: (w) => workloadView('Deployment', w),
    } satisfies InformerSpec<k8s.V1Deployment, unknown>,
    replicaSets: {
      kind: 'replicasets',
      path: '/apis/apps/v1/replicasets',
      list: (p) => apps.listReplicaSetForAllNamespaces(p),
      project: (w) => workloadView('ReplicaSet', w),
    } satisfies InformerSpec<k8s.V1ReplicaSet, unknown>,
  };
}

function informersFor(registry: InformerRegistry) {
  const s = specs(registry.kc);
  const make = <T extends k8s.KubernetesObject, V>(spec: InformerSpec<T, V>) => registry.informer(spec);
  return {
    nodes: make(s.nodes),
    leases: make(s.leases),
    pods: make(s.pods),
    persistentVolumes: make(s.persistentVolumes),
    persistentVolumeClaims: make(s.persistentVolumeClaims),
    volumeAttachments: make(s.volumeAttachments),
    endpointSlices: make(s.endpointSlices),
    events: make(s.events),
    statefulSets: make(s.statefulSets),
    deployments: make(s.deployments),
    replicaSets: make(s.replicaSets),
  };
}

export class ClusterConnection {
  readonly cache = new ClusterCache();
  /** when pods left their Services' endpoints, for the termination timeline */
  readonly endpoints = new EndpointTracker();
  readonly informers: ReturnType<typeof informersFor>;
  /**
   * The cluster's shared watches: the console's views above and the loops' projections (the
   * aggregator's pods, the generator's workloads, the fencing controller's nodes) read one
   * watch per kind.
   */
  readonly registry: InformerRegistry;
  readonly core: k8s.CoreV1Api;
  private readonly healthListeners: ((h: ClusterHealth) => void)[] = [];
  private healthTimer: NodeJS.Timeout | undefined;

  /** `logger`: where its informers' lines go (the root logger by default), with the cluster added */
  constructor(
    readonly spec: ClusterSpec,
    tuning?: InformerTuning,
    logger: Logger = rootLogger,
  ) {
    this.core = spec.kc.makeApiClient(k8s.CoreV1Api);
    this.registry = new InformerRegistry(spec.kc, tuning, logger.child({ cluster: spec.id }));
    this.informers = informersFor(this.registry);
    this.wire();
  }

  get id() {
    return this.spec.id;
  }

  private wire() {
    const { nodes, leases, pods, events, endpointSlices } = this.informers;
    const c = this.cache;
    nodes.on({
      add: (n) => c.setNode(n.view, n.heartbeat),
      update: (n) => c.setNode(n.view, n.heartbeat),
      delete: (n) => c.deleteNode(n.view.name),
    });
    leases.on({
      add: (l) => c.setLease(l),
      update: (l) => c.setLease(l),
      delete: (l) => c.deleteLease(l.name),
    });
    pods.on({ add: (p) => c.setPod(p), update: (p) => c.setPod(p), delete: (p) => c.deletePod(p) });
    endpointSlices.on({
      update: (next, old) => this.endpoints.record(old, next),
      delete: (old) => this.endpoints.record(old, undefined),
    });
    events.on({
      add: (e) => c.setEvent(e),
      update: (e) => c.setEvent(e),
      delete: (e) => c.deleteEvent(e.uid),
    });
    for (const inf of this.all()) inf.onHealth(() => this.healthChanged());
  }

  private all(): AnyInformer[] {
    return Object.values(this.informers);
  }

  start() {
    for (const inf of this.all()) inf.start();
  }

  /** Resolves when every informer has delivered its first list. */
  async synced() {
    await Promise.all(this.all().map((i) => i.synced()));
  }

  /** Every informer holds a current list (false while one re-lists after an error). */
  isSynced(): boolean {
    return this.all().every((i) => i.health.synced);
  }

  async stop() {
    clearTimeout(this.healthTimer);
    await Promise.all(this.all().map((i) => i.stop()));
    await this.registry.stop();
  }

  health(): ClusterHealth {
    return {
      cluster: this.id,
      informers: this.all().map(({ health: h }) => ({
        kind: h.kind,
        synced: h.synced,
        restarts: h.restarts,
        // readable causes (401, 403 with the resource, unreachable at which URL, TLS)
        ...(h.lastError ? { lastError: explainInformerError(h.lastError, h.kind).text } : {}),
      })),
      embedded: this.spec.infra !== undefined,
      mode: this.spec.mode ?? 'normal',
    };
  }

  /** Each watch's last delivery and since when it is down: the incident view's freshness. */
  /**
   * Every running watch of this cluster: the console's and those the loops and services made on
   * its registry (NodeFences, FencePolicies, PodProtectors, the serving Secret...), so the
   * incident view's freshness covers all that it and the controllers read.
   */
  watchActivity(): { kind: string; synced: boolean; lastEventAt?: number; downSince?: number }[] {
    return this.registry
      .all()
      .filter((w) => w.retained)
      .map((w) => ({ kind: w.kind, synced: w.health.synced, ...w.activity() }));
  }

  onHealth(l: (h: ClusterHealth) => void) {
    this.healthListeners.push(l);
  }

  // ten informers fail together when the API server goes away: report once
  private healthChanged() {
    if (this.healthTimer) return;
    this.healthTimer = setTimeout(() => {
      this.healthTimer = undefined;
      const h = this.health();
      for (const l of this.healthListeners) l(h);
    }, 50);
  }
}
