// Free TCP ports for servers that tests start. A port the kernel hands out for port 0 comes from
// the ephemeral range (32768–60999 on Linux), the same range every outgoing connection takes its
// local port from: between asking and binding, one of the suite's thousands of connections (or
// another test's port-0 pick) can take it, and the server then fails with EADDRINUSE. Ports here
// come from below that range, at random, and are checked free on 127.0.0.1 before they are
// handed out.
//
// The suite runs several test processes side by side (shards, the real control plane's pass,
// Playwright), and a server may bind its port seconds after the pick (a Palisade replica
// compiles first). So each port handed out is also reserved across processes: a file named by
// the port, created exclusively, holding the pid. A reservation lasts while that process lives
// (it removes its files on exit); one whose process is gone, or older than a day, is taken over.
import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOW = 20_000;
const HIGH = 32_767;
const DIR = join(tmpdir(), 'palisade-ports');
const STALE_MS = 24 * 3600_000;
const handedOut = new Set<number>();

function listens(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address() as { port: number };
      s.close(() => resolve(bound));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** true when no other live process holds the port's reservation (a stale one is removed) */
function reserve(port: number): boolean {
  const file = join(DIR, String(port));
  const create = () => {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  };
  if (create()) return true;
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    const old = Date.now() - statSync(file).mtimeMs > STALE_MS;
    if (pid > 0 && alive(pid) && !old) return false;
    unlinkSync(file);
  } catch {
    return false; // it changed under us: another process is at it
  }
  return create();
}

let cleanupHooked = false;
function hookCleanup() {
  if (cleanupHooked) return;
  cleanupHooked = true;
  mkdirSync(DIR, { recursive: true });
  process.once('exit', () => {
    for (const port of handedOut) {
      try {
        unlinkSync(join(DIR, String(port)));
      } catch {}
    }
  });
}

/** a port free on 127.0.0.1 now, reserved against the suite's other processes */
export async function freePort(): Promise<number> {
  hookCleanup();
  for (let tries = 0; tries < 200; tries++) {
    const port = randomInt(LOW, HIGH + 1);
    if (handedOut.has(port) || !reserve(port)) continue;
    handedOut.add(port);
    if ((await listens(port)) === port) return port;
  }
  // the low range is crowded: let the kernel choose
  const port = await listens(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}
