// Who used the two cores during a phase: each child, the bench itself and everything
// else on the machine, from /proc (the children may be too busy to answer IPC mid-storm).
import { performance } from 'node:perf_hooks';
import { type ProcReading, readProc } from '../cluster/procfs.js';

export interface CpuWindow {
  wallMs: number;
  /** per process name: CPU ms used in the window */
  used: Record<string, number>;
  benchMs: number;
  othersMs: number;
}

export class CpuMeter {
  private t0 = 0;
  private start: Record<string, ProcReading | undefined> = {};

  constructor(private readonly pids: Record<string, number>) {}

  begin() {
    this.t0 = performance.now();
    this.start = Object.fromEntries(Object.entries(this.pids).map(([k, pid]) => [k, readProc(pid)]));
  }

  end(): CpuWindow {
    const wallMs = performance.now() - this.t0;
    const used: Record<string, number> = {};
    let any: { a: ProcReading; b: ProcReading } | undefined;
    for (const [k, pid] of Object.entries(this.pids)) {
      const a = this.start[k];
      const b = readProc(pid);
      if (!a || !b) continue;
      used[k] = b.cpuMs - a.cpuMs;
      any = { a, b };
    }
    if (!any) return { wallMs, used, benchMs: 0, othersMs: 0 };
    const benchMs = any.b.parentCpuMs - any.a.parentCpuMs;
    const children = Object.values(used).reduce((s, v) => s + v, 0);
    const othersMs = Math.max(0, any.b.hostBusyMs - any.a.hostBusyMs - children - benchMs);
    return { wallMs, used, benchMs, othersMs };
  }
}

/** "cluster 95 %, webhook 20 %, …" as shares of one core. */
export function cpuNote(w: CpuWindow): string {
  const pct = (ms: number) => `${((100 * ms) / Math.max(1, w.wallMs)).toFixed(0)} %`;
  const parts = Object.entries(w.used).map(([k, ms]) => `${k} ${pct(ms)}`);
  parts.push(`bench ${pct(w.benchMs)}`, `other processes ${pct(w.othersMs)}`);
  return `${parts.join(', ')} of one core over ${(w.wallMs / 1000).toFixed(1)} s`;
}
