// Parent side of the server child: start it, ask it for stats, and make sure it dies
// with the bench, whichever way the bench ends.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest, ServerStats } from './protocol.js';

export interface Endpoint {
  host: string;
  port: number;
  token: string;
  ca: string;
}

const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STATS_TIMEOUT_MS = 30_000;

export class ServerChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (s: ServerStats) => void>();

  private constructor(
    private readonly proc: ChildProcess,
    readonly endpoint: Endpoint,
  ) {
    proc.on('message', (m) => {
      const reply = m as ChildReply;
      if (reply.type !== 'stats') return;
      this.waiting.get(reply.id)?.(reply.stats);
      this.waiting.delete(reply.id);
    });
  }

  /** profileDir: write a V8 CPU profile of the server there when it stops */
  static async start(profileDir?: string): Promise<ServerChild> {
    // --import tsx: the child runs the TypeScript sources as `npm run cluster` does;
    // --expose-gc: RSS is read after a forced collection, not at a random GC phase
    const execArgv = ['--expose-gc', '--import', 'tsx'];
    if (profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
    const proc = fork(serverScript, [], {
      cwd: repoRoot,
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    killOnExit(proc);
    const ready = await waitReady(proc);
    const u = new URL(ready.url);
    return new ServerChild(proc, {
      host: u.hostname,
      port: Number(u.port),
      token: ready.token,
      ca: ready.caPem,
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  stats(opts: { gc?: boolean; reset?: boolean } = {}): Promise<ServerStats> {
    const id = this.nextId++;
    const req: ChildRequest = { type: 'stats', id, gc: !!opts.gc, reset: !!opts.reset };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`server child gave no stats in ${STATS_TIMEOUT_MS} ms`));
      }, STATS_TIMEOUT_MS);
      this.waiting.set(id, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
      this.proc.send(req);
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}

function waitReady(proc: ChildProcess): Promise<Extract<ChildReply, { type: 'ready' }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`server child not ready in ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null) => fail(new Error(`server child exited early (code ${code})`));
    function fail(e: Error) {
      clearTimeout(timer);
      proc.off('exit', onExit);
      proc.kill('SIGKILL');
      reject(e);
    }
    proc.once('exit', onExit);
    proc.on('message', function onMessage(m) {
      const reply = m as ChildReply;
      if (reply.type !== 'ready') return;
      clearTimeout(timer);
      proc.off('exit', onExit);
      proc.off('message', onMessage);
      resolve(reply);
    });
  });
}

// A crash or Ctrl-C in the parent must not leave the server (and its GiB of heap) running.
function killOnExit(proc: ChildProcess) {
  const kill = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  };
  process.once('exit', kill);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      kill();
      process.exit(130);
    });
  }
}
