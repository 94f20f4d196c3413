// The ground truth of the simulated data plane: which processes really run where and
// which volumes they write to, whatever the Kubernetes API believes. Every change is
// an event, so the checker, the control API's live stream and the console can follow.
import { EventEmitter } from 'node:events';

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
}

export type TerminationStep =
  | 'observed'
  | 'preStop-started'
  | 'preStop-finished'
  | 'preStop-cut-short'
  | 'SIGTERM'
  | 'exited'
  | 'SIGKILL'
  | 'status-reported'
  | 'removed'
  | 'kubelet-restarted';

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
  private readonly steps: StepRecord[] = [];
  /** node -> fenced volumes ("*" = every volume) */
  private readonly fenced = new Map<string, Set<string>>();
  /** keep stopped processes for a while so the console can show recent history */
  private readonly maxStopped = 5000;

  emitEvent(e: Omit<InfraEvent, 'at'>) {
    this.emit('event', { ...e, at: Date.now() } as InfraEvent);
  }

  start(p: Omit<Process, 'id' | 'startedAt'>): Process {
    const proc: Process = { ...p, id: this.nextId++, startedAt: Date.now() };
    this.procs.set(proc.id, proc);
    this.emitEvent({ type: 'process-started', node: p.node, process: proc });
    return proc;
  }

  stop(id: number, reason: string, exitCode = 137) {
    const p = this.procs.get(id);
    if (!p || p.stoppedAt) return;
    p.stoppedAt = Date.now();
    p.stopReason = reason;
    p.exitCode = exitCode;
    this.emitEvent({ type: 'process-stopped', node: p.node, process: p });
    this.trimStopped();
  }

  private trimStopped() {
    const stopped = [...this.procs.values()].filter((p) => p.stoppedAt);
    for (const p of stopped.slice(0, Math.max(0, stopped.length - this.maxStopped))) this.procs.delete(p.id);
  }

  get(id: number): Process | undefined {
    return this.procs.get(id);
  }

  running(node?: string): Process[] {
    return [...this.procs.values()].filter((p) => !p.stoppedAt && (!node || p.node === node));
  }

  all(): Process[] {
    return [...this.procs.values()];
  }

  forPod(podUid: string): Process | undefined {
    return [...this.procs.values()].find((p) => p.podUid === podUid && !p.stoppedAt);
  }

  recordStep(s: Omit<StepRecord, 'at'>) {
    const rec = { ...s, at: Date.now() };
    this.steps.push(rec);
    if (this.steps.length > 50_000) this.steps.splice(0, 10_000);
    this.emitEvent({ type: 'termination-step', node: s.node, step: rec });
  }

  timeline(podUid: string): StepRecord[] {
    return this.steps.filter((s) => s.podUid === podUid);
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
