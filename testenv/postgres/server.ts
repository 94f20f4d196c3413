// A throwaway PostgreSQL server for the history store's tests: Debian's postgresql (apt-get
// install postgresql; .ci/run installs it), initdb into a temporary directory, listening on
// 127.0.0.1 only at a free port, trust authentication for the local test user, gone at stop.
// PostgreSQL refuses to run as root (the CI runs as root): then it runs as the `postgres` user
// (or `nobody`) through setpriv, in a directory that user owns.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../sim/real/ports.js';

/** The directory of initdb and postgres: $POSTGRES_BIN_DIR, else Debian's newest version. */
export function postgresBinDir(): string | undefined {
  const given = process.env.POSTGRES_BIN_DIR;
  if (given) return existsSync(join(given, 'postgres')) ? given : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

export const postgresMissing = () =>
  postgresBinDir()
    ? undefined
    : 'PostgreSQL is not installed (apt-get install postgresql, or set POSTGRES_BIN_DIR)';

export interface PostgresServer {
  /** postgres://palisade@127.0.0.1:<port>/palisade */
  url: string;
  port: number;
  child: ChildProcess;
  /** stop (fast shutdown) and start again on the same directory and port: data kept */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** uid/gid to run as when we are root: postgres's, else nobody's. */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error(
    'running as root and neither the postgres nor the nobody user exists: PostgreSQL refuses root',
  );
}

function command(bin: string, args: string[], as: { uid: number; gid: number } | undefined) {
  return as
    ? { file: 'setpriv', args: [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', bin, ...args] }
    : { file: bin, args };
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}):\n${log()}`);
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('select 1');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  throw new Error(`postgres did not accept connections within 30 s:\n${log()}`);
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing());
  const as = unprivileged();
  const root = await mkdtemp(join(tmpdir(), 'palisade-pg-'));
  const data = join(root, 'data');
  if (as) chownSync(root, as.uid, as.gid);
  chmodSync(root, 0o700);
  const init = command(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'palisade', '-A', 'trust', '-E', 'UTF8', '--no-sync'],
    as,
  );
  execFileSync(init.file, init.args, { stdio: 'pipe', cwd: root });
  const port = await freePort();
  let out = '';
  let child!: ChildProcess;
  const url = `postgres://palisade@127.0.0.1:${port}/postgres`;
  const start = async () => {
    out = '';
    // sockets in the data directory (not /var/run/postgresql), TCP on loopback only, no fsync: a test server
    const run = command(
      join(bin, 'postgres'),
      ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', root, '-c', 'fsync=off'],
      as,
    );
    child = spawn(run.file, run.args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
    child.stdout?.on('data', (b) => (out += b));
    child.stderr?.on('data', (b) => (out += b));
    await waitReady(url, child, () => out);
  };
  const stopChild = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT'); // fast shutdown: clean, data kept
    await exited;
  };
  await start();
  return {
    url,
    port,
    get child() {
      return child;
    },
    async restart() {
      await stopChild();
      await start();
    },
    async stop() {
      await stopChild();
      await rm(root, { recursive: true, force: true });
    },
  };
}
