// The simulated infrastructure around the nodes: power (through a BMC), the network
// between each node and the API server, storage fencing, kubelet crashes, and
// processes that react to signals on their own. It owns the ground truth; kubelets
// ask it to start and signal processes, as a kubelet asks a container runtime.
import { WorkQueue } from '../controllers/runtime/queue.js';
import { GroundTruth, type Process } from './groundTruth.js';

export type Power = 'on' | 'off';

export interface NodeInfra {
  name: string;
  power: Power;
  /** cut off from the API server (its processes keep running and writing) */
  partitioned: boolean;
  kubelet: 'running' | 'crashed' | 'stopped';
  /** destroyed for ever (meteor) */
  gone: boolean;
  powerChangedAt: number;
}

/** What the infrastructure needs from whoever runs kubelets. */
export interface KubeletHost {
  boot(node: string): void;
  halt(node: string): void;
  /** a process on this node stopped: its kubelet may want to look */
  processStopped(p: Process): void;
  /** the node's connection to the API server came back */
  reconnected(node: string): void;
}

export class InfraError extends Error {
  constructor(
    message: string,
    readonly code = 409,
  ) {
    super(message);
  }
}

export class Infrastructure {
  readonly truth = new GroundTruth();
  private readonly nodes = new Map<string, NodeInfra>();
  private readonly exits = new WorkQueue(async (key) => this.processExit(Number(key)));
  /** what each process still does before it exits after SIGTERM (holdExit) */
  private readonly exitHolds = new Map<number, Promise<unknown>[]>();
  private host: KubeletHost | undefined;

  attach(host: KubeletHost) {
    this.host = host;
  }

  addNode(name: string) {
    if (this.nodes.has(name)) return;
    this.nodes.set(name, {
      name,
      power: 'on',
      partitioned: false,
      kubelet: 'running',
      gone: false,
      powerChangedAt: Date.now(),
    });
    this.host?.boot(name);
  }

  node(name: string): NodeInfra {
    const n = this.nodes.get(name);
    if (!n) throw new InfraError(`no such node: ${name}`, 404);
    return n;
  }

  list(): NodeInfra[] {
    return [...this.nodes.values()];
  }

  /**
   * Can this node's processes reach the control plane's network (the API server, Palisade)?
   * A crashed kubelet does not cut its pods off; a partition or a power cut does.
   */
  networkUp(name: string): boolean {
    const n = this.nodes.get(name);
    return !!n && n.power === 'on' && !n.partitioned && !n.gone;
  }

  /** Can this node's kubelet talk to the API server right now? */
  reachable(name: string): boolean {
    const n = this.nodes.get(name);
    return !!n && n.power === 'on' && !n.partitioned && n.kubelet === 'running';
  }

  // ---- faults ------------------------------------------------------------------------

  partition(name: string) {
    const n = this.alive(name);
    n.partitioned = true;
    this.truth.emitEvent({ type: 'partitioned', node: name });
  }

  heal(name: string) {
    const n = this.node(name);
    if (!n.partitioned) return;
    n.partitioned = false;
    this.truth.emitEvent({ type: 'healed', node: name });
    if (n.power === 'on' && n.kubelet === 'running') this.host?.reconnected(name);
  }

  powerOff(name: string, reason = 'power-off') {
    const n = this.alive(name);
    if (n.power === 'off') return;
    n.power = 'off';
    n.powerChangedAt = Date.now();
    this.host?.halt(name);
    n.kubelet = 'stopped';
    for (const p of this.truth.running(name)) this.truth.stop(p.id, reason);
    this.truth.emitEvent({ type: 'power-off', node: name });
  }

  powerOn(name: string) {
    const n = this.alive(name);
    if (n.power === 'on') return;
    n.power = 'on';
    n.powerChangedAt = Date.now();
    n.kubelet = 'running';
    this.truth.emitEvent({ type: 'power-on', node: name });
    this.host?.boot(name);
  }

  reset(name: string) {
    this.powerOff(name, 'reset');
    this.powerOn(name);
  }

  kubeletCrash(name: string) {
    const n = this.alive(name);
    if (n.power !== 'on' || n.kubelet !== 'running')
      throw new InfraError(`kubelet on ${name} is not running`);
    this.host?.halt(name);
    n.kubelet = 'crashed';
    this.truth.emitEvent({ type: 'kubelet-crashed', node: name });
  }

  kubeletRestart(name: string) {
    const n = this.alive(name);
    if (n.power !== 'on') throw new InfraError(`node ${name} is powered off`);
    if (n.kubelet === 'running') this.host?.halt(name);
    n.kubelet = 'running';
    this.truth.emitEvent({ type: 'kubelet-restarted', node: name });
    this.host?.boot(name);
  }

  storageFence(name: string, pv?: string) {
    this.node(name);
    this.truth.fence(name, pv);
  }

  storageUnfence(name: string, pv?: string) {
    this.node(name);
    this.truth.unfence(name, pv);
  }

  meteor(name: string) {
    const n = this.alive(name);
    if (n.power === 'on') this.powerOff(name, 'meteor');
    n.gone = true;
    this.truth.emitEvent({ type: 'meteor', node: name });
  }

  private alive(name: string): NodeInfra {
    const n = this.node(name);
    if (n.gone) throw new InfraError(`node ${name} was destroyed by a meteor`, 410);
    return n;
  }

  // ---- the container runtime's side ---------------------------------------------------

  startProcess(p: Omit<Process, 'id' | 'startedAt'>): Process {
    const n = this.node(p.node);
    if (n.power !== 'on') throw new InfraError(`node ${p.node} is powered off`);
    return this.truth.start(p);
  }

  signal(id: number, sig: 'SIGTERM' | 'SIGKILL') {
    const p = this.truth.get(id);
    if (!p || p.stoppedAt) return;
    if (sig === 'SIGKILL') return this.stopped(p, 'SIGKILL', 137);
    if (p.sigtermAt) return;
    p.sigtermAt = Date.now();
    this.truth.emitEvent({ type: 'process-signalled', node: p.node, process: p, signal: sig });
    if (p.sigtermExitMs !== null) this.exits.addAfter(String(id), p.sigtermExitMs);
  }

  /**
   * Work a process does on SIGTERM before it exits (a program gives its instance ID back, then
   * exits): it exits after its sigtermExitMs and this work, whichever ends last; SIGKILL does not wait.
   */
  holdExit(id: number, work: Promise<unknown>) {
    const p = this.truth.get(id);
    if (!p || p.stoppedAt) return;
    const held = this.exitHolds.get(id) ?? [];
    held.push(work.catch(() => undefined));
    this.exitHolds.set(id, held);
  }

  private async processExit(id: number) {
    const held = this.exitHolds.get(id);
    // not awaited here: the queue handles one exit at a time, and other processes exit meanwhile
    if (held) void Promise.all(held).then(() => this.exitNow(id));
    else this.exitNow(id);
  }

  private exitNow(id: number) {
    const p = this.truth.get(id);
    if (p && !p.stoppedAt) this.stopped(p, 'exited after SIGTERM', 0);
  }

  private stopped(p: Process, reason: string, code: number) {
    this.exitHolds.delete(p.id);
    this.truth.stop(p.id, reason, code);
    this.host?.processStopped(p);
  }

  /** BMC view of a node's power, as a fence agent's status query sees it. */
  bmcStatus(name: string): Power {
    const n = this.node(name);
    return n.gone ? 'off' : n.power;
  }

  stop() {
    this.exits.stop();
  }
}
