// The test identity provider as a process of its own:
//
//   npx tsx testenv/oidc/main.ts --port 0 --state DIR \
//     --client-id palisade --client-secret s3cret --redirect-uri http://127.0.0.1:3000/auth/oidc/callback
//
// When it serves, it prints one JSON line on stdout (ReadyLine in cli.ts); everything else goes
// to stderr. It stops on SIGTERM or SIGINT, and when its parent dies: when stdin is a pipe or
// socket, at its end (the writer is gone), and when one of its first three ancestors exits. Ancestors, not
// only the parent: under `npx tsx` the parent is tsx's launcher and the grandparent npm, and
// neither passes a SIGTERM on when the caller dies or npm is killed (measured: npm exits on
// SIGTERM and leaves tsx and the provider running).
import { fstatSync, readFileSync } from 'node:fs';
import { type MainConfig, USAGE, parseCommandLine, readyLine } from './cli.js';

async function main() {
  let config: MainConfig;
  try {
    config = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  // stdout carries only the ready line: oidc-provider prints its notices with console.info
  console.info = console.error;
  console.log = console.error;
  const { startIdentityProvider } = await import('./server.js');
  const idp = await startIdentityProvider({
    ...config,
    log: (msg) => process.stderr.write(`[idp] ${msg}\n`),
  });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[idp] stopping (${why})\n`);
    await idp.stop().catch((e) => process.stderr.write(`[idp] stop: ${e}\n`));
    process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // a pipe from a shell is a FIFO, one from Node's child_process a socket
  const stdin = fstatSync(0);
  if (stdin.isFIFO() || stdin.isSocket()) {
    process.stdin.on('end', () => stop('stdin closed: parent gone'));
    process.stdin.on('error', () => stop('stdin error: parent gone'));
    process.stdin.resume();
  }
  const watched = ancestors(process.pid, 3);
  setInterval(() => {
    const gone = watched.find((a) => !alive(a));
    if (gone) stop(`ancestor ${gone.pid} gone`);
  }, 500).unref();
  process.stdout.write(`${JSON.stringify(readyLine(idp))}\n`);
}

interface Proc {
  pid: number;
  /** start time in clock ticks since boot: a reused pid has another */
  start: string;
}

/** /proc/<pid>/stat: [state, ppid, start time]; undefined when there is no such process */
function stat(pid: number): { state: string; ppid: number; start: string } | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces
    const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], ppid: Number(fields[1]), start: fields[19] };
  } catch {
    return undefined;
  }
}

/** up to n ancestors, init excluded (on systems without /proc: the parent alone, by pid) */
function ancestors(pid: number, n: number): Proc[] {
  const out: Proc[] = [];
  let ppid = stat(pid)?.ppid;
  if (ppid === undefined) return process.ppid > 1 ? [{ pid: process.ppid, start: '' }] : [];
  while (ppid && ppid > 1 && out.length < n) {
    const s = stat(ppid);
    if (!s) break;
    out.push({ pid: ppid, start: s.start });
    ppid = s.ppid;
  }
  return out;
}

function alive(p: Proc): boolean {
  if (!p.start) return process.ppid === p.pid;
  const s = stat(p.pid);
  // a zombie has exited; a process with another start time is not the one we watched
  return !!s && s.state !== 'Z' && s.start === p.start;
}

main().catch((e) => {
  process.stderr.write(`[idp] failed to start: ${e?.stack ?? e}\n`);
  process.exit(1);
});
