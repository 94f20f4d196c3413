// Runs every simulated kubelet of the cluster in one process, cheaply: one set of
// informers shared by all kubelets (a kubelet only "sees" them while it can reach the
// API server), and one work queue with a single timer for every lease renewal,
// status post and pod step, so thousands of nodes do not become thousands of timers.
import type * as k8s from '@kubernetes/client-node';
import { Clients, Informers } from '../controllers/runtime/context.js';
import type { Durations } from '../controllers/runtime/durations.js';
import { EventRecorder } from '../controllers/runtime/events.js';
import { WorkQueue } from '../controllers/runtime/queue.js';
import type { Process } from '../infra/groundTruth.js';
import type { Infrastructure, KubeletHost } from '../infra/infrastructure.js';
import { SimKubelet, type NodeSpec } from './kubelet.js';

export class KubeletFleet implements KubeletHost {
  readonly clients: Clients;
  readonly informers: Informers;
  readonly events: EventRecorder;
  readonly queue: WorkQueue;
  private readonly specs = new Map<string, NodeSpec>();
  private readonly kubelets = new Map<string, SimKubelet>();
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly podsByUid = new Map<string, k8s.V1Pod>();

  constructor(
    kc: k8s.KubeConfig,
    readonly infra: Infrastructure,
    readonly durations: Durations,
    concurrency = 16,
  ) {
    this.clients = new Clients(kc);
    this.informers = new Informers(this.clients);
    this.events = new EventRecorder(this.clients.core);
    this.queue = new WorkQueue((key) => this.dispatch(key), undefined, concurrency);
    infra.attach(this);
    this.watch();
  }

  private watch() {
    this.informers.pods.on({
      add: (p) => this.podChanged(p),
      update: (p) => this.podChanged(p),
      delete: (p) => this.podGone(p),
    });
    const byVolume = () => {
      for (const k of this.kubelets.values()) k.volumesChanged();
    };
    this.informers.volumeAttachments.on({ add: byVolume, update: byVolume, delete: byVolume });
    this.informers.pvcs.on({ update: byVolume });
    // make sure the caches kubelets read are there
    void this.informers.pvs;
    void this.informers.nodes;
  }

  async start() {
    await this.informers.startAll();
  }

  async stop() {
    for (const k of this.kubelets.values()) k.halt();
    this.queue.stop();
    await this.informers.stopAll();
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
