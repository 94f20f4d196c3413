// A mirror of the embedded cluster's running processes, kept by its infrastructure event
// stream, with the kubelet's termination steps passed through. Each (re)connection of the
// stream re-reads the process list, so a gap never leaves a stale process behind.
import { EventEmitter } from 'node:events';
import type { ProcessView } from '../../lib/console/ghosts.js';
import { type InfraEndpoint, type RawProcess, runningProcesses, type TerminationStep } from './infra.js';
import { InfraStream, type InfraStreamEvent } from './infraStream.js';

const toView = (p: RawProcess): ProcessView => ({
  id: p.id,
  node: p.node,
  podUid: p.podUid,
  podName: p.podName,
  namespace: p.namespace,
  startedAt: p.startedAt,
  volumes: (p.volumes ?? []).map((v) => v.pv),
});

export class GroundTruthMirror extends EventEmitter<{
  changed: [];
  step: [TerminationStep];
  error: [string];
}> {
  private running = new Map<number, ProcessView>();
  /** while a resync's list is in flight: what the stream said meanwhile */
  private during?: { started: Map<number, ProcessView>; stopped: Set<number> };
  private readonly stream: InfraStream;
  private retry?: NodeJS.Timeout;
  private stopped = false;
  synced = false;

  constructor(private readonly ep: InfraEndpoint) {
    super();
    this.stream = new InfraStream(ep);
    this.stream.on('connected', () => void this.resync());
    this.stream.on('lost', (why) => this.emit('error', why));
    this.stream.on('event', (e) => this.apply(e));
  }

  start() {
    this.stream.start();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    this.stream.stop();
  }

  processes(): IterableIterator<ProcessView> {
    return this.running.values();
  }

  get size() {
    return this.running.size;
  }

  private apply(e: InfraStreamEvent) {
    if (e.type === 'termination-step') return void this.emit('step', e.step as TerminationStep);
    const p = e.process as RawProcess | undefined;
    if (!p) return;
    if (e.type === 'process-started') {
      this.running.set(p.id, toView(p));
      this.during?.started.set(p.id, toView(p));
    } else if (e.type === 'process-stopped') {
      this.running.delete(p.id);
      this.during?.stopped.add(p.id);
      this.during?.started.delete(p.id);
    } else return;
    this.emit('changed');
  }

  private async resync() {
    const during = { started: new Map<number, ProcessView>(), stopped: new Set<number>() };
    this.during = during;
    try {
      const listed = await runningProcesses(this.ep);
      if (this.during !== during) return; // a newer resync took over
      const fresh = new Map<number, ProcessView>();
      for (const p of listed) if (!during.stopped.has(p.id)) fresh.set(p.id, toView(p));
      for (const [id, p] of during.started) fresh.set(id, p);
      this.running = fresh;
      this.synced = true;
      this.emit('changed');
    } catch (e) {
      this.emit('error', `reading the ground truth failed: ${(e as Error).message}`);
      // the stream is up but the list failed: try again rather than stay unsynced
      if (!this.stopped) this.retry = setTimeout(() => this.stream.connected && void this.resync(), 2_000);
    } finally {
      if (this.during === during) this.during = undefined;
    }
  }
}
