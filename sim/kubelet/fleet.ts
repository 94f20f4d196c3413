// Runs every simulated kubelet of the cluster in one process, cheaply: one set of
// informers shared by all kubelets (a kubelet only "sees" them while it can reach the
// API server), and work queues with a single timer each, so thousands of nodes do not
// become thousands of timers: a lane for Lease renewals, one for registration and status
// posts, and one for pod work, so a busy node fleet still renews every Lease in time.
// Heartbeats and pod status reports have connection pools of their own for the same reason.
import type * as k8s from '@kubernetes/client-node';
import { Clients, Informers } from '../controllers/runtime/context.js';
import type { Durations } from '../controllers/runtime/durations.js';
import { EventRecorder } from '../controllers/runtime/events.js';
import { WorkQueue } from '../controllers/runtime/queue.js';
import type { Process } from '../infra/groundTruth.js';
import type { Infrastructure, KubeletHost } from '../infra/infrastructure.js';
import { InstanceIdApps } from './instanceIds.js';
import { SimKubelet, type NodeSpec } from './kubelet.js';
import { LeanClient } from './leanClient.js';

export interface FleetOptions {
  /** pod steps handled at once */
  concurrency?: number;
  /** Lease renewals in flight at once: 5000 nodes need 500 a second, each a round trip of
   * a few hundred ms when the process is busy */
  leaseConcurrency?: number;
  /** registrations and status posts in flight at once */
  heartbeatConcurrency?: number;
  /**
   * Informers to read instead of a set of the fleet's own (e.g. the controllers', in the
   * same process, so each event is decoded once). Kubelets still only take in what they
   * see while their node can reach the API server.
   */
  informers?: Informers;
}

export class KubeletFleet implements KubeletHost {
  readonly clients: Clients;
  /**
   * Registration, Lease renewals and status posts, the calls made most often, through a
   * connection pool of their own: no request of the controllers queued ahead holds them up
   */
  readonly heartbeatApi: LeanClient;
  /** pod status reports, a pool of their own too */
  readonly podApi: LeanClient;
  readonly informers: Informers;
  readonly events: EventRecorder;
  /** the pods' programs that take instance IDs from Palisade */
  readonly apps: InstanceIdApps;
  /** pod work */
  readonly queue: WorkQueue;
  /** Lease renewals: first, so no backlog of registrations or status posts delays them */
  readonly leases: WorkQueue;
  /** registration and status posts */
  readonly heartbeats: WorkQueue;
  private readonly ownInformers: boolean;
  private readonly specs = new Map<string, NodeSpec>();
  private readonly kubelets = new Map<string, SimKubelet>();
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly podsByUid = new Map<string, k8s.V1Pod>();
  /** nodes with pods waiting for their volumes: the only ones a claim update concerns */
  private readonly volumeWaits = new Set<string>();

  constructor(
    kc: k8s.KubeConfig,
    readonly infra: Infrastructure,
    readonly durations: Durations,
    opts: FleetOptions = {},
  ) {
    const pods = opts.concurrency ?? 64;
    const leases = opts.leaseConcurrency ?? 256;
    const beats = opts.heartbeatConcurrency ?? 64;
    this.clients = new Clients(kc);
    // as many sockets as the lanes have requests in flight: none waits for one
    this.heartbeatApi = new LeanClient(kc, leases + beats);
    this.podApi = new LeanClient(kc, pods);
    this.ownInformers = !opts.informers;
    this.informers = opts.informers ?? new Informers(this.clients);
    this.events = new EventRecorder(this.clients.core);
    this.apps = new InstanceIdApps({ infra, core: this.clients.core });
    const dispatch = (key: string) => this.dispatch(key);
    this.queue = new WorkQueue(dispatch, undefined, pods);
    this.leases = new WorkQueue(dispatch, undefined, leases);
    this.heartbeats = new WorkQueue(dispatch, undefined, beats);
    infra.attach(this);
    this.watch();
  }

  private watch() {
    this.informers.pods.on({
      add: (p) => this.podChanged(p),
      update: (p) => this.podChanged(p),
      delete: (p) => this.podGone(p),
    });
    // an attachment concerns the kubelet of its node only
    const attachment = (va: k8s.V1VolumeAttachment) => this.volumesChanged(va.spec?.nodeName);
    this.informers.volumeAttachments.on({ add: attachment, update: attachment, delete: attachment });
    this.informers.pvcs.on({ update: () => this.claimsChanged() });
    // make sure the caches kubelets read are there
    void this.informers.pvs;
    void this.informers.nodes;
  }

  private volumesChanged(node: string | undefined) {
    const k = node ? this.kubelets.get(node) : undefined;
    if (!k || k.volumesChanged() === 0) this.volumeWaits.delete(node ?? '');
  }

  private claimsChanged() {
    for (const node of [...this.volumeWaits]) this.volumesChanged(node);
  }

  /** A kubelet has a pod waiting for its volumes. */
  waitingForVolumes(node: string) {
    this.volumeWaits.add(node);
  }

  async start() {
    await this.informers.startAll();
    // shared informers may have synced before our handlers were there
    if (!this.ownInformers) for (const p of this.informers.pods.list()) this.podChanged(p);
  }

  async stop() {
    for (const k of this.kubelets.values()) k.halt();
    this.apps.stop();
    this.queue.stop();
    this.leases.stop();
    this.heartbeats.stop();
    if (this.ownInformers) await this.informers.stopAll();
  }

  /** Declare a node; the infrastructure powers it on, which boots its kubelet. */
  addNode(spec: NodeSpec) {
    this.specs.set(spec.name, spec);
    this.infra.addNode(spec.name);
  }

  kubelet(node: string): SimKubelet | undefined {
    return this.kubelets.get(node);
  }

  // ---- KubeletHost -------------------------------------------------------------------

  boot(node: string) {
    const spec = this.specs.get(node);
    if (!spec) return;
    this.kubelets.get(node)?.halt();
    const k = new SimKubelet(spec, this);
    this.kubelets.set(node, k);
    k.boot();
  }

  halt(node: string) {
    this.kubelets.get(node)?.halt();
    this.kubelets.delete(node);
  }

  processStopped(p: Process) {
    this.kubelets.get(p.node)?.enqueuePod(p.podUid);
  }

  reconnected(node: string) {
    this.kubelets.get(node)?.resync();
  }

  // ---- what kubelets read ---------------------------------------------------------------

  podsOn(node: string): k8s.V1Pod[] {
    return [...(this.podsByNode.get(node) ?? [])].map((uid) => this.podsByUid.get(uid)!).filter(Boolean);
  }

  pod(uid: string): k8s.V1Pod | undefined {
    return this.podsByUid.get(uid);
  }

  private podChanged(p: k8s.V1Pod) {
    const uid = p.metadata!.uid!;
    const node = p.spec?.nodeName;
    this.podsByUid.set(uid, p);
    if (!node) return;
    let set = this.podsByNode.get(node);
    if (!set) this.podsByNode.set(node, (set = new Set()));
    set.add(uid);
    this.kubelets.get(node)?.podEvent(uid);
  }

  private podGone(p: k8s.V1Pod) {
    const uid = p.metadata!.uid!;
    this.podsByUid.delete(uid);
    const node = p.spec?.nodeName;
    if (!node) return;
    this.podsByNode.get(node)?.delete(uid);
    this.kubelets.get(node)?.podEvent(uid);
  }

  private async dispatch(key: string) {
    const [node, kind, arg] = key.split('|', 3);
    const k = this.kubelets.get(node);
    if (!k) return;
    await k.handle(kind, arg);
  }
}
