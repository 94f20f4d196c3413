// A process bench:memory measures: started here, its output kept, its memory read from
// /proc/<pid>/status every 250 ms (VmRSS now, VmHWM the kernel's own high-water mark, which
// catches a peak between two samples). It dies with the bench.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { killOnExit } from '../cluster/session.js';
import { childrenOf, type ProcReading, readProc } from '../cluster/procfs.js';
import { sleep } from '../common.js';

const SAMPLE_MS = 250;
const TAIL = 60;

export class Measured {
  readonly samples: ProcReading[] = [];
  /** the VmRSS of its descendants together (npm start's embedded cluster and its BMCs), per sample */
  readonly descendants: { at: number; rss: number }[] = [];
  readonly lines: string[] = [];
  private readonly sampler: NodeJS.Timeout;
  private exited = false;
  private partial = '';

  constructor(
    readonly label: string,
    private readonly proc: ChildProcess,
  ) {
    killOnExit(proc);
    proc.on('exit', () => (this.exited = true));
    proc.stdout?.on('data', (c: Buffer) => this.keep(c));
    proc.stderr?.on('data', (c: Buffer) => this.keep(c));
    this.sampler = setInterval(() => {
      const r = proc.pid ? readProc(proc.pid) : undefined;
      if (r) this.samples.push(r);
      if (proc.pid) this.descendants.push({ at: Date.now(), rss: descendantsRss(proc.pid) });
    }, SAMPLE_MS);
  }

  static start(label: string, argv: string[], opts: { cwd: string; env?: Record<string, string> }): Measured {
    const proc = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...opts.env },
    });
    return new Measured(label, proc);
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  private keep(c: Buffer) {
    const parts = (this.partial + c.toString()).split('\n');
    this.partial = parts.pop() ?? '';
    for (const l of parts) if (l.trim()) this.lines.push(l);
  }

  tail(): string {
    return this.lines.slice(-TAIL).join('\n');
  }

  /** Resolves with the first line matching `re` from line `from` on (seen so far or to come). */
  async waitFor(re: RegExp, timeoutMs: number, what: string, from = 0): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (; from < this.lines.length; from++) {
        const m = re.exec(this.lines[from]);
        if (m) return m;
      }
      if (this.exited) throw new Error(`${this.label} exited before ${what}:\n${this.tail()}`);
      await sleep(100);
    }
    throw new Error(`${this.label}: no ${what} in ${timeoutMs / 1000} s:\n${this.tail()}`);
  }

  send(line: string) {
    this.proc.stdin?.write(`${line}\n`);
  }

  now(): ProcReading | undefined {
    return this.proc.pid ? readProc(this.proc.pid) : undefined;
  }

  /** the highest VmHWM read (the process's peak so far) */
  peak(): number {
    const last = this.now();
    return Math.max(last?.hwm ?? 0, ...this.samples.map((s) => s.hwm));
  }

  /** the median VmRSS of the samples taken since `since` (ms, Date.now()) */
  steady(since: number): number {
    const v = this.samples
      .filter((s) => s.at >= since)
      .map((s) => s.rss)
      .sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : Number.NaN;
  }

  /** the descendants' median summed VmRSS since `since`, and their highest sum sampled */
  descendantsRss(since: number): { steady: number; peak: number } {
    const v = this.descendants
      .filter((s) => s.at >= since)
      .map((s) => s.rss)
      .sort((a, b) => a - b);
    return {
      steady: v.length ? v[Math.floor(v.length / 2)] : 0,
      peak: Math.max(0, ...this.descendants.map((s) => s.rss)),
    };
  }

  async stop(graceMs = 15_000) {
    clearInterval(this.sampler);
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}

/** The summed VmRSS of every process below `pid` (Linux's /proc/<pid>/task/<tid>/children). */
function descendantsRss(pid: number): number {
  let sum = 0;
  for (const child of childrenOf(pid)) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child}/status`, 'utf8'));
      sum += m ? Number(m[1]) * 1024 : 0;
    } catch {
      // it has just exited
    }
    sum += descendantsRss(child);
  }
  return sum;
}
