// The console server in a process of its own, started as the container image starts it (plain
// node on the compiled dist/server/main.js: `npm run build:server`, which run.ts makes first), so
// /proc/<pid> measures the console alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sleep } from '../common.js';
import { killOnExit } from '../cluster/session.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** the compiled server, as the image runs it */
export const SERVER = 'dist/server/main.js';
const START_TIMEOUT_MS = 90_000;
const LOG_TAIL = 30;

export class ConsoleChild {
  readonly log: string[] = [];
  private readonly proc: ChildProcess;
  private readonly startTimeoutMs: number;
  private exited = false;

  /**
   * profileDir: write a V8 CPU profile of the console there when it stops; args: more of
   * main.ts's options (e.g. --config); env: more environment; wrap: a command around it
   */
  constructor(
    kubeconfig: string,
    profileDir?: string,
    opts: {
      args?: string[];
      env?: Record<string, string>;
      wrap?: (argv: string[]) => string[];
      /** how long it may take to print its URL (default 90 s) */
      startTimeoutMs?: number;
    } = {},
  ) {
    this.startTimeoutMs = opts.startTimeoutMs ?? START_TIMEOUT_MS;
    const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const args = [...prof, SERVER, '--kubeconfig', kubeconfig, ...(opts.args ?? [])];
    // wrap: e.g. start it in a memory cgroup (bench/memory/cgroup.ts); it execs node, same pid
    const argv = (opts.wrap ?? ((a) => a))([process.execPath, ...args, '--port', '0', '--host', '127.0.0.1']);
    this.proc = spawn(argv[0], argv.slice(1), {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production', ...opts.env },
    });
    killOnExit(this.proc);
    this.proc.on('exit', () => (this.exited = true));
    this.proc.stdout?.on('data', (c: Buffer) => this.keep(c));
    this.proc.stderr?.on('data', (c: Buffer) => this.keep(c));
  }

  /** how it ended (exit code or signal), undefined while it runs */
  get ended(): string | undefined {
    if (this.proc.signalCode) return this.proc.signalCode;
    return this.proc.exitCode === null ? undefined : `exit ${this.proc.exitCode}`;
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  private keep(c: Buffer) {
    for (const line of c.toString().split('\n')) if (line.trim()) this.log.push(line);
    this.log.splice(0, Math.max(0, this.log.length - LOG_TAIL));
  }

  /** The URL main.ts prints once it serves. */
  async url(): Promise<string> {
    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`console exited early:\n${this.log.join('\n')}`);
      const m = this.log.map((l) => /Palisade console: (\S+)/.exec(l)).find(Boolean);
      if (m) return m[1];
      await sleep(100);
    }
    throw new Error(`console did not print its URL in ${this.startTimeoutMs} ms:\n${this.log.join('\n')}`);
  }

  /** SIGTERM (main.ts then stops cleanly and --cpu-prof writes its file); SIGKILL after graceMs. */
  async stop(graceMs = 10_000) {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}

interface ClusterHealth {
  id: string;
  health: { informers: { kind: string; synced: boolean }[] };
}

/** Waits until every informer of the console's cluster has its first list; returns the cluster id. */
export async function waitSynced(url: string, token: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/trpc/clusters.list`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await res.json();
      const list: ClusterHealth[] = body.result?.data?.json ?? body.result?.data;
      const pending = list[0].health.informers.filter((i) => !i.synced).map((i) => i.kind);
      if (pending.length === 0) return list[0].id;
      last = `waiting for ${pending.join(', ')}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(250);
  }
  throw new Error(`console informers not synced in ${timeoutMs} ms (${last})`);
}
