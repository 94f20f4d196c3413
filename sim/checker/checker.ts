// Evaluates the invariants continuously (on every ground-truth change) and keeps each
// violation with its evidence, when it began and when it ended. Open for more
// invariants: deletion protection will register its own.
import type { GroundTruth, InfraEvent, Process } from '../infra/groundTruth.js';
import { type Finding, type Invariant, defaultInvariants } from './invariants.js';

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

export class SafetyChecker {
  private readonly invariants: Invariant[] = [...defaultInvariants];
  private readonly violations: Violation[] = [];
  private readonly open = new Map<string, Violation>();
  private nextId = 1;
  private pending: NodeJS.Timeout | undefined;
  // coalesce bursts (a node booting starts many processes at once) into one evaluation
  private readonly listener = (e: InfraEvent) => {
    if (!e.type.startsWith('process-') && !e.type.startsWith('storage-')) return;
    if (!this.pending) this.pending = setTimeout(() => this.evaluate(), this.debounceMs);
  };

  constructor(
    private readonly truth: GroundTruth,
    private readonly debounceMs = 20,
  ) {
    truth.on('event', this.listener);
  }

  register(inv: Invariant) {
    this.invariants.push(inv);
    this.evaluate();
  }

  evaluate() {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    const running = this.truth.running();
    const findings: Finding[] = this.invariants.flatMap((i) => i.evaluate(running, (p, pv) => this.truth.writes(p, pv)));
    const seen = new Set<string>();
    for (const f of findings) {
      const key = `${f.invariant}|${f.subject}`;
      seen.add(key);
      if (this.open.has(key)) continue;
      const v: Violation = { id: this.nextId++, invariant: f.invariant, subject: f.subject, message: f.message, since: Date.now(), evidence: structuredClone(f.processes) };
      this.open.set(key, v);
      this.violations.push(v);
      this.truth.emitEvent({ type: 'violation', violation: v });
    }
    for (const [key, v] of this.open) {
      if (seen.has(key)) continue;
      v.until = Date.now();
      this.open.delete(key);
      this.truth.emitEvent({ type: 'violation-ended', violation: v });
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
