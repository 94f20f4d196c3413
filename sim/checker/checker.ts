// Evaluates the invariants continuously and keeps each violation with its evidence,
// when it began and when it ended. It indexes running processes by subject and
// re-judges only the subjects a change touched (a burst of changes is coalesced).
// Deletion protection is judged from the API view instead (protection.ts).
import type { GroundTruth, InfraEvent, Process } from '../infra/groundTruth.js';
import { type Invariant, defaultInvariants } from './invariants.js';

export interface Violation {
  id: number;
  invariant: string;
  subject: string;
  message: string;
  since: number;
  until?: number;
  /** snapshot of the processes when the violation was first seen */
  evidence: Process[];
}

/** Violation ids shared by every checker, so a merged listing has no duplicates. */
let lastViolationId = 0;
export const nextViolationId = () => ++lastViolationId;

/** What the infrastructure's control API lists: any checker's violations. */
export interface ViolationSource {
  list(): Violation[];
}

export class SafetyChecker implements ViolationSource {
  private readonly invariants: Invariant[] = [];
  /** invariant name -> subject -> running process ids */
  private readonly index = new Map<string, Map<string, Set<number>>>();
  /** process id -> the "invariant\0subject" keys it is indexed under (subjects may change) */
  private readonly keysOf = new Map<number, string[]>();
  private readonly dirty = new Set<string>();
  private readonly violations: Violation[] = [];
  private readonly open = new Map<string, Violation>();
  private pending: NodeJS.Timeout | undefined;
  private readonly listener = (e: InfraEvent) => this.observe(e);

  constructor(
    private readonly truth: GroundTruth,
    private readonly debounceMs = 20,
  ) {
    for (const inv of defaultInvariants) this.register(inv);
    truth.on('event', this.listener);
  }

  register(inv: Invariant) {
    this.invariants.push(inv);
    const idx = new Map<string, Set<number>>();
    this.index.set(inv.name, idx);
    for (const p of this.truth.running()) this.add(inv, idx, p);
    this.schedule();
  }

  private add(inv: Invariant, idx: Map<string, Set<number>>, p: Process) {
    for (const s of inv.subjectsOf(p)) {
      let set = idx.get(s);
      if (!set) idx.set(s, (set = new Set()));
      set.add(p.id);
      const key = `${inv.name}\u0000${s}`;
      this.dirty.add(key);
      const keys = this.keysOf.get(p.id);
      if (keys) keys.push(key);
      else this.keysOf.set(p.id, [key]);
    }
  }

  /** Take a process out of every subject it was indexed under. */
  private remove(p: Process) {
    for (const key of this.keysOf.get(p.id) ?? []) {
      const [name, subject] = key.split('\u0000');
      this.index.get(name)?.get(subject)?.delete(p.id);
      this.dirty.add(key);
    }
    this.keysOf.delete(p.id);
  }

  private observe(e: InfraEvent) {
    const p = e.process as Process | undefined;
    if (e.type === 'process-started' && p)
      for (const inv of this.invariants) this.add(inv, this.index.get(inv.name)!, p);
    else if (e.type === 'process-stopped' && p) this.remove(p);
    else if ((e.type === 'instance-id-held' || e.type === 'instance-id-dropped') && p) {
      // what the process counts towards changed: index it anew
      this.remove(p);
      if (!p.stoppedAt) for (const inv of this.invariants) this.add(inv, this.index.get(inv.name)!, p);
    } else if (e.type === 'storage-fenced' || e.type === 'storage-unfenced') {
      // fencing changes who writes: re-judge every subject of the node's processes
      for (const proc of this.truth.running(String(e.node)))
        for (const inv of this.invariants)
          for (const s of inv.subjectsOf(proc)) this.dirty.add(`${inv.name}\u0000${s}`);
    } else return;
    this.schedule();
  }

  private schedule() {
    if (!this.pending) this.pending = setTimeout(() => this.evaluate(), this.debounceMs);
  }

  /** Judge every dirty subject now. */
  evaluate() {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    const writes = (p: Process, pv: string) => this.truth.writes(p, pv);
    for (const key of this.dirty) {
      const [name, subject] = key.split('\u0000');
      const inv = this.invariants.find((i) => i.name === name)!;
      const ids = this.index.get(name)!.get(subject) ?? new Set<number>();
      const procs = [...ids].map((id) => this.truth.get(id)).filter((p): p is Process => !!p && !p.stoppedAt);
      if (procs.length === 0) this.index.get(name)!.delete(subject);
      this.judge(key, inv.check(subject, procs, writes));
    }
    this.dirty.clear();
  }

  private judge(key: string, finding: ReturnType<Invariant['check']>) {
    const open = this.open.get(key);
    if (finding && !open) {
      const v: Violation = {
        id: nextViolationId(),
        invariant: finding.invariant,
        subject: finding.subject,
        message: finding.message,
        since: Date.now(),
        evidence: structuredClone(finding.processes),
      };
      this.open.set(key, v);
      this.violations.push(v);
      this.truth.emitEvent({ type: 'violation', violation: v });
    } else if (!finding && open) {
      open.until = Date.now();
      this.open.delete(key);
      this.truth.emitEvent({ type: 'violation-ended', violation: open });
    }
  }

  list(): Violation[] {
    return [...this.violations];
  }

  stop() {
    if (this.pending) clearTimeout(this.pending);
    this.truth.off('event', this.listener);
  }
}
