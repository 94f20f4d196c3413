// The ground truth of the simulated data plane: which processes really run where and
// which volumes they write to, whatever the Kubernetes API believes. Every change is
// an event, so the checker, the control API's live stream and the console can follow.
import { EventEmitter } from 'node:events';
import type { TerminationStepName } from '../../lib/kube/termination.js';

export type AccessMode = 'ReadWriteOnce' | 'ReadWriteOncePod' | 'ReadWriteMany' | 'ReadOnlyMany';

export interface ProcessVolume {
  pv: string;
  accessMode: AccessMode;
}

export interface Process {
  id: number;
  node: string;
  podUid: string;
  podName: string;
  namespace: string;
  /** StatefulSet identity "namespace/statefulset/ordinal", when the pod has one */
  identity?: string;
  owner?: { kind: string; name: string };
  volumes: ProcessVolume[];
  startedAt: number;
  /** how long the process takes to exit once it gets SIGTERM; null = ignores SIGTERM */
  sigtermExitMs: number | null;
  sigtermAt?: number;
  stoppedAt?: number;
  stopReason?: string;
  exitCode?: number;
  /**
   * The instance ID the pod's program was given (seed 002) and holds until it gives it back
   * (on SIGTERM) or dies: what the program believes, whatever the map says by now.
   */
  instanceId?: InstanceIdClaim;
}

export interface InstanceIdClaim {
  /** "namespace/Kind/name" of the workload whose map gave it */
  workload: string;
  id: number;
  since: number;
}

export type TerminationStep = TerminationStepName;

export interface StepRecord {
  podUid: string;
  podName: string;
  namespace: string;
  node: string;
  step: TerminationStep;
  at: number;
  detail?: string;
}

export interface InfraEvent {
  type: string;
  at: number;
  node?: string;
  [key: string]: unknown;
}

export class GroundTruth extends EventEmitter {
  private nextId = 1;
  private readonly procs = new Map<number, Process>();
  // indexes: at scale (150 000 processes) nothing may scan the whole table per call
  private readonly runningByNode = new Map<string, Set<number>>();
  private readonly runningByPod = new Map<string, number>();
  private readonly lastByPod = new Map<string, number>();
  private readonly stoppedOrder: number[] = [];
  private readonly steps: StepRecord[] = [];
  private readonly stepsByPod = new Map<string, StepRecord[]>();
  /** node -> fenced volumes ("*" = every volume) */
  private readonly fenced = new Map<string, Set<string>>();
  /** keep stopped processes for a while so the console can show recent history */
  private readonly maxStopped = 5000;

  constructor() {
    super();
    this.setMaxListeners(100);
  }

  emitEvent(e: Omit<InfraEvent, 'at'>) {
    this.emit('event', { ...e, at: Date.now() } as InfraEvent);
  }

  start(p: Omit<Process, 'id' | 'startedAt'>): Process {
    const proc: Process = { ...p, id: this.nextId++, startedAt: Date.now() };
    this.procs.set(proc.id, proc);
    let set = this.runningByNode.get(proc.node);
    if (!set) this.runningByNode.set(proc.node, (set = new Set()));
    set.add(proc.id);
    this.runningByPod.set(proc.podUid, proc.id);
    this.lastByPod.set(proc.podUid, proc.id);
    this.emitEvent({ type: 'process-started', node: p.node, process: proc });
    return proc;
  }

  stop(id: number, reason: string, exitCode = 137) {
    const p = this.procs.get(id);
    if (!p || p.stoppedAt) return;
    p.stoppedAt = Date.now();
    p.stopReason = reason;
    p.exitCode = exitCode;
    this.runningByNode.get(p.node)?.delete(id);
    if (this.runningByPod.get(p.podUid) === id) this.runningByPod.delete(p.podUid);
    this.stoppedOrder.push(id);
    this.emitEvent({ type: 'process-stopped', node: p.node, process: p });
    this.trimStopped();
  }

  /** The process's program was given an instance ID. */
  holdInstanceId(id: number, claim: Omit<InstanceIdClaim, 'since'>) {
    const p = this.procs.get(id);
    if (!p || p.stoppedAt) return;
    p.instanceId = { ...claim, since: Date.now() };
    this.emitEvent({ type: 'instance-id-held', node: p.node, process: p });
  }

  /** The process's program gave its instance ID back (or stopped acting as it). */
  dropInstanceId(id: number) {
    const p = this.procs.get(id);
    if (!p?.instanceId || p.stoppedAt) return;
    const claim = p.instanceId;
    p.instanceId = undefined;
    this.emitEvent({ type: 'instance-id-dropped', node: p.node, process: p, claim });
  }

  private trimStopped() {
    while (this.stoppedOrder.length > this.maxStopped) {
      const id = this.stoppedOrder.shift()!;
      const p = this.procs.get(id);
      this.procs.delete(id);
      if (p && this.lastByPod.get(p.podUid) === id) this.lastByPod.delete(p.podUid);
    }
  }

  get(id: number): Process | undefined {
    return this.procs.get(id);
  }

  running(node?: string): Process[] {
    if (node !== undefined) return [...(this.runningByNode.get(node) ?? [])].map((id) => this.procs.get(id)!);
    return [...this.procs.values()].filter((p) => !p.stoppedAt);
  }

  runningCount(node: string): number {
    return this.runningByNode.get(node)?.size ?? 0;
  }

  all(): Process[] {
    return [...this.procs.values()];
  }

  /** The pod's running process, if any. */
  forPod(podUid: string): Process | undefined {
    const id = this.runningByPod.get(podUid);
    return id === undefined ? undefined : this.procs.get(id);
  }

  /** The pod's most recent process, running or stopped. */
  lastForPod(podUid: string): Process | undefined {
    const id = this.lastByPod.get(podUid);
    return id === undefined ? undefined : this.procs.get(id);
  }

  recordStep(s: Omit<StepRecord, 'at'>) {
    const rec = { ...s, at: Date.now() };
    this.steps.push(rec);
    let list = this.stepsByPod.get(s.podUid);
    if (!list) this.stepsByPod.set(s.podUid, (list = []));
    list.push(rec);
    if (this.steps.length > 50_000) {
      for (const old of this.steps.splice(0, 10_000)) this.stepsByPod.delete(old.podUid);
    }
    this.emitEvent({ type: 'termination-step', node: s.node, step: rec });
  }

  timeline(podUid: string): StepRecord[] {
    return [...(this.stepsByPod.get(podUid) ?? [])];
  }

  fence(node: string, pv = '*') {
    let set = this.fenced.get(node);
    if (!set) this.fenced.set(node, (set = new Set()));
    set.add(pv);
    this.emitEvent({ type: 'storage-fenced', node, pv });
  }

  unfence(node: string, pv = '*') {
    const set = this.fenced.get(node);
    if (pv === '*') this.fenced.delete(node);
    else set?.delete(pv);
    this.emitEvent({ type: 'storage-unfenced', node, pv });
  }

  fencedVolumes(node: string): string[] {
    return [...(this.fenced.get(node) ?? [])];
  }

  /** Is this process actually able to write to the volume right now? */
  writes(p: Process, pv: string): boolean {
    if (p.stoppedAt) return false;
    const set = this.fenced.get(p.node);
    return !set || !(set.has('*') || set.has(pv));
  }
}
