// One upstream binary as a child process that cannot outlive us: it runs under a small
// bash guard holding our stdin pipe, so when this process exits (even by SIGKILL) the
// pipe closes and the guard sends the binary SIGTERM. Output goes to a log file in the
// state folder, whose tail is quoted when the binary fails to start.
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// fd 3 keeps our pipe; the binary itself gets /dev/null as stdin. SIGTERM to the guard is
// passed on and the guard waits for the binary. When the pipe closes (we died) the binary
// gets SIGTERM after $1 seconds: etcd waits so that the API server stops first.
const GUARD = [
  'd=$1; shift; exec 3<&0',
  '"$@" </dev/null & p=$!',
  'trap "kill -TERM $p 2>/dev/null" TERM',
  '{ read -r _ <&3; sleep "$d"; kill -TERM $p 2>/dev/null; } & w=$!',
  's=0; while kill -0 $p 2>/dev/null; do wait $p; s=$?; done',
  'kill $w 2>/dev/null; exit $s',
].join('; ');

export class GuardedProcess {
  readonly logFile: string;
  private readonly child: ChildProcess;
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    bin: string,
    args: string[],
    state: string,
    /** seconds to wait after our death before stopping it (etcd outlives the API server) */
    orphanDelaySeconds = 0,
  ) {
    this.logFile = join(state, `${name}.log`);
    const out = openSync(this.logFile, 'a');
    this.child = spawn('bash', ['-c', GUARD, name, String(orphanDelaySeconds), bin, ...args], {
      stdio: ['pipe', out, out],
      // its own process group, so a last-resort SIGKILL reaches the binary too
      detached: true,
    });
    closeSync(out);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? 128 : 1);
        resolve();
      }),
    );
  }

  get running() {
    return this.exitCode === undefined;
  }

  /** the last lines it logged, for error messages */
  tail(lines = 15): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM through the guard; SIGKILL the whole group after graceMs */
  async stop(graceMs = 15_000) {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
