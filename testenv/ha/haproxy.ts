// A TCP load balancer in front of local processes, for the test tier's replicated runs: Debian's
// haproxy (apt-get install haproxy; .ci/run installs it), TLS passed through untouched (the API
// server's client certificate reaches each replica), health checks every 200 ms so a killed
// replica leaves the rotation at once, and a connection refused by a dead backend redispatched to
// a live one. Started in the foreground; stopped with SIGTERM and when its parent goes away.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HAPROXY = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';

export function haproxyAvailable(): boolean {
  try {
    execFileSync(HAPROXY, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface Balancer {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface BalancerOptions {
  /**
   * roundrobin (the default) spreads connections; source sends every connection from one
   * address to one backend while it is up (consistent hashing: when it goes, only its clients
   * move), so a test on loopback knows which replica its connections reach
   */
  balance?: 'roundrobin' | 'source';
}

/** haproxy's configuration: one TCP frontend on 127.0.0.1:port over the backends. */
export function haproxyConfig(
  port: number,
  backends: { host: string; port: number }[],
  opts: BalancerOptions = {},
): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode tcp',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  retries 3',
    // a dead server's refused connection goes to the next server at once, not after 3 tries
    '  option redispatch 1',
    'frontend palisade',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    ...(opts.balance === 'source'
      ? ['  balance source', '  hash-type consistent']
      : ['  balance roundrobin']),
    ...backends.map((b, i) => `  server r${i} ${b.host}:${b.port} check inter 200 fall 1 rise 2`),
    '',
  ].join('\n');
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export async function startBalancer(
  port: number,
  backends: { host: string; port: number }[],
  opts: BalancerOptions = {},
): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  await writeFile(cfg, haproxyConfig(port, backends, opts));
  // -db: foreground, no daemon; -W would fork a master
  const child = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d) => (err += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // no balancer outlives the test run that started it
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null) throw new Error(`haproxy exited at start:\n${err}`);
    if (Date.now() > deadline) throw new Error(`haproxy did not listen on ${port}:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    child,
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
