// The parent's handle on the cluster child: forks it, collects what it reports, and
// makes sure it dies with the bench, whichever way the bench ends.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ClientCost, Final, ParentMessage, Sample, Target } from './protocol.js';

const childScript = fileURLToPath(new URL('./child.ts', import.meta.url));
const costScript = fileURLToPath(new URL('./client-cost.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const STDERR_TAIL = 40;

export interface ApiInfo {
  at: number;
  kubeconfigPath: string;
  /** when the child called startEmbeddedCluster */
  startAt: number;
  target: Target;
}

export class ClusterChild {
  readonly forkedAt = Date.now();
  readonly samples: Sample[] = [];
  readonly logs: { at: number; msg: string }[] = [];
  readonly profiles = new Map<string, string>();
  readonly stderr: string[] = [];
  api: ApiInfo | undefined;
  startedAt: number | undefined;
  error: string | undefined;
  exit: { code: number | null; signal: string | null; at: number } | undefined;
  private final: ((f: Final) => void) | undefined;
  private readonly proc: ChildProcess;

  constructor(args: string[]) {
    // --import tsx: the child runs the TypeScript sources as `npm run cluster` does;
    // --expose-gc: the final RSS is read after a forced collection
    this.proc = fork(childScript, args, {
      cwd: repoRoot,
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.proc.on('message', (m) => this.onMessage(m as ChildMessage));
    this.proc.on('exit', (code, signal) => (this.exit = { code, signal, at: Date.now() }));
    this.proc.stdout?.on('data', (c: Buffer) => this.keep(c));
    this.proc.stderr?.on('data', (c: Buffer) => this.keep(c));
    killOnExit(this.proc);
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  get alive(): boolean {
    return !this.exit;
  }

  get last(): Sample | undefined {
    return this.samples[this.samples.length - 1];
  }

  private keep(c: Buffer) {
    for (const line of c.toString().split('\n')) if (line.trim()) this.stderr.push(line);
    this.stderr.splice(0, Math.max(0, this.stderr.length - STDERR_TAIL));
  }

  private onMessage(m: ChildMessage) {
    if (m.type === 'sample') this.samples.push(m.sample);
    else if (m.type === 'log') this.logs.push({ at: m.at, msg: m.msg });
    else if (m.type === 'api') this.api = m;
    else if (m.type === 'started') this.startedAt = m.at;
    else if (m.type === 'profiled') this.profiles.set(m.label, m.path);
    else if (m.type === 'final') this.final?.(m.final);
    else if (m.type === 'error') this.error = m.message;
  }

  send(m: ParentMessage) {
    if (this.alive && this.proc.connected) this.proc.send(m);
  }

  /** Force a GC in the child and read its memory; undefined if it cannot answer in time. */
  finalStats(timeoutMs: number): Promise<Final | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.final = (f) => {
        clearTimeout(timer);
        resolve(f);
      };
      this.send({ type: 'final' });
    });
  }

  /** Ask it to exit; kill it if it does not within graceMs. */
  async stop(graceMs = 3_000) {
    if (!this.alive) return;
    const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.send({ type: 'exit' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}

/** Run bench/cluster/client-cost.ts in its own process; undefined if it fails or overruns. */
/** The client-cost phase in its own child; a child that ends without its figures fails the bench. */
export function measureClientCost(requests: number, timeoutMs: number): Promise<ClientCost[]> {
  const proc = fork(costScript, [String(requests)], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  killOnExit(proc);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    let results: ClientCost[] | undefined;
    proc.on('message', (m) => (results = (m as { results: ClientCost[] }).results));
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (results) resolve(results);
      else
        reject(
          new Error(
            `the client-cost phase (bench/cluster/client-cost.ts) ended without its figures: exit ${code ?? signal}${signal === 'SIGKILL' ? ` (killed after ${timeoutMs} ms)` : ''}`,
          ),
        );
    });
  });
}

const children = new Set<ChildProcess>();

function killAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** However the bench ends (normally, Ctrl-C, a crash), no child outlives it. */
export function killOnExit(proc: ChildProcess) {
  proc.on('exit', () => children.delete(proc));
  if (!installed) install();
  children.add(proc);
}

let installed = false;

function install() {
  installed = true;
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      killAll();
      process.exit(130);
    });
  process.on('uncaughtException', (e) => {
    killAll();
    console.error(e);
    process.exit(1);
  });
}
