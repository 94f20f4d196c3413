// What every simulated controller gets: API clients from a kubeconfig (no back door
// into the API server), shared supervised informers, durations and an event recorder.
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { Durations } from './durations.js';
import { EventRecorder } from './events.js';
import { SupervisedInformer } from './informer.js';

export class Informers {
  private readonly all = new Map<string, SupervisedInformer<any>>();

  constructor(private readonly c: Clients) {}

  private make<T extends k8s.KubernetesObject>(
    path: string,
    list: () => Promise<k8s.KubernetesListObject<T>>,
  ): SupervisedInformer<T> {
    let inf = this.all.get(path);
    if (!inf) {
      inf = new SupervisedInformer<T>(this.c.kc, path, list);
      this.all.set(path, inf);
    }
    return inf;
  }

  get pods() {
    return this.make<k8s.V1Pod>('/api/v1/pods', () => this.c.core.listPodForAllNamespaces());
  }
  get nodes() {
    return this.make<k8s.V1Node>('/api/v1/nodes', () => this.c.core.listNode());
  }
  get leases() {
    return this.make<k8s.V1Lease>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', () =>
      this.c.coordination.listNamespacedLease({ namespace: 'kube-node-lease' }),
    );
  }
  get pvs() {
    return this.make<k8s.V1PersistentVolume>('/api/v1/persistentvolumes', () =>
      this.c.core.listPersistentVolume(),
    );
  }
  get pvcs() {
    return this.make<k8s.V1PersistentVolumeClaim>('/api/v1/persistentvolumeclaims', () =>
      this.c.core.listPersistentVolumeClaimForAllNamespaces(),
    );
  }
  get storageClasses() {
    return this.make<k8s.V1StorageClass>('/apis/storage.k8s.io/v1/storageclasses', () =>
      this.c.storage.listStorageClass(),
    );
  }
  get volumeAttachments() {
    return this.make<k8s.V1VolumeAttachment>('/apis/storage.k8s.io/v1/volumeattachments', () =>
      this.c.storage.listVolumeAttachment(),
    );
  }
  get statefulSets() {
    return this.make<k8s.V1StatefulSet>('/apis/apps/v1/statefulsets', () =>
      this.c.apps.listStatefulSetForAllNamespaces(),
    );
  }
  get deployments() {
    return this.make<k8s.V1Deployment>('/apis/apps/v1/deployments', () =>
      this.c.apps.listDeploymentForAllNamespaces(),
    );
  }
  get replicaSets() {
    return this.make<k8s.V1ReplicaSet>('/apis/apps/v1/replicasets', () =>
      this.c.apps.listReplicaSetForAllNamespaces(),
    );
  }
  get services() {
    return this.make<k8s.V1Service>('/api/v1/services', () => this.c.core.listServiceForAllNamespaces());
  }
  get endpointSlices() {
    return this.make<k8s.V1EndpointSlice>('/apis/discovery.k8s.io/v1/endpointslices', () =>
      this.c.discovery.listEndpointSliceForAllNamespaces(),
    );
  }
  get pdbs() {
    return this.make<k8s.V1PodDisruptionBudget>('/apis/policy/v1/poddisruptionbudgets', () =>
      this.c.policy.listPodDisruptionBudgetForAllNamespaces(),
    );
  }

  async startAll() {
    await Promise.all([...this.all.values()].map((i) => i.start()));
    await Promise.all([...this.all.values()].map((i) => i.synced()));
  }

  async stopAll() {
    await Promise.all([...this.all.values()].map((i) => i.stop()));
  }

  health() {
    return [...this.all.values()].map((i) => i.health);
  }
}

export class Clients {
  readonly core: k8s.CoreV1Api;
  readonly apps: k8s.AppsV1Api;
  readonly storage: k8s.StorageV1Api;
  readonly discovery: k8s.DiscoveryV1Api;
  readonly coordination: k8s.CoordinationV1Api;
  readonly policy: k8s.PolicyV1Api;

  constructor(readonly kc: k8s.KubeConfig) {
    shareConnections(kc);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.apps = kc.makeApiClient(k8s.AppsV1Api);
    this.storage = kc.makeApiClient(k8s.StorageV1Api);
    this.discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    this.coordination = kc.makeApiClient(k8s.CoordinationV1Api);
    this.policy = kc.makeApiClient(k8s.PolicyV1Api);
  }
}

const shared = new WeakSet<k8s.KubeConfig>();

/**
 * client-node 1.4.0 gives every request a new https.Agent, so every call pays a TLS
 * handshake (measured: ~8 ms of CPU per request against <1 ms on a kept-alive
 * connection). Thousands of simulated kubelets need one keep-alive pool per kubeconfig.
 */
export function shareConnections(kc: k8s.KubeConfig) {
  const caData = kc.getCurrentCluster()?.caData;
  if (shared.has(kc) || !caData) return;
  shared.add(kc);
  // enough sockets that one busy client (a burst of pod creations) does not hold every
  // other request of the process in the agent's queue
  const agent = new https.Agent({ keepAlive: true, maxSockets: 128, ca: Buffer.from(caData, 'base64') });
  const original = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context) => {
    await original(context);
    context.setAgent(agent);
  };
}

export interface ControllerContext {
  clients: Clients;
  informers: Informers;
  durations: Durations;
  events: EventRecorder;
  log: (component: string, msg: string) => void;
}

export interface Controller {
  readonly name: string;
  /** register informer handlers; informers are started after every controller registered */
  register(ctx: ControllerContext): void;
  /** called once informers have synced */
  start(): void;
  stop(): void;
}

export function makeContext(
  kc: k8s.KubeConfig,
  durations: Durations,
  log?: ControllerContext['log'],
): ControllerContext {
  const clients = new Clients(kc);
  return {
    clients,
    informers: new Informers(clients),
    durations,
    events: new EventRecorder(clients.core),
    log: log ?? ((component, msg) => process.env.PALISADE_DEBUG && console.log(`[${component}] ${msg}`)),
  };
}

/** HTTP status of a failed client-node call (0 if not an API error). */
export function statusCode(err: unknown): number {
  return err instanceof k8s.ApiException ? err.code : 0;
}

export { jsonPatch, mergePatch, strategicPatch } from './patches.js';
