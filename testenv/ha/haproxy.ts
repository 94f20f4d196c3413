// A load balancer in front of local processes, for the test tier's replicated runs: Debian's
// haproxy (apt-get install haproxy; .ci/run installs it), health checks every 200 ms so a killed
// replica leaves the rotation at once, and a connection refused by a dead backend redispatched to
// a live one. Started in the foreground; stopped with SIGTERM and when its parent goes away.
//
// Two modes. tcp (the default): TLS passed through untouched (the API server's client
// certificate reaches each replica), so a request in flight on a replica that dies (SIGKILL)
// fails: kube-apiserver does not retry a webhook POST whose connection died. http: TLS ends at
// haproxy (it serves the replicas' shared certificate and verifies the caller's client
// certificate itself), each request is buffered whole and re-encrypted to a replica with
// haproxy's own client certificate, and a request whose replica dies under it (connection
// refused, reset, closed with no answer, no answer in time) is replayed on another replica
// (haproxy 2.6 layer-7 retries: retry-on, retries, option redispatch): no caller sees it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createConnection } from 'node:net';
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
  /** haproxy's counters for the backend (`show stat`), summed over its servers */
  stats(): Promise<BackendStats>;
  /** each server's state and last health check, as haproxy sees them (for a failing test to print) */
  servers(): Promise<string[]>;
  /** put server `index` in rotation (ready) or take it out (maint); open connections stay */
  setServer(index: number, state: 'ready' | 'maint'): Promise<void>;
  stop(): Promise<void>;
}

export interface BackendStats {
  /** requests (http) or connections (tcp) replayed on a server after a failure ("wretr") */
  retries: number;
  /** of those, the ones moved to another server ("wredis") */
  redispatches: number;
  /** responses haproxy answered itself because no server could ("eresp"/5xx it made) */
  errors: number;
}

/** A key pair in PEM (a certificate and its private key). */
export interface PemPair {
  certPem: string;
  keyPem: string;
}

/**
 * TLS ended at haproxy (mode http): what the frontend serves and whom it hears, and how it
 * speaks TLS again to the backends.
 */
export interface TlsTermination {
  /** the certificate (and key) the frontend serves: the replicas' shared serving pair */
  serving: PemPair;
  /** the CAs a caller's client certificate must chain to (the frontend requires one) */
  clientCaPem: string;
  /** subject CNs a caller may have (like the webhook's clientAuth.allowedNames); default any */
  clientNames?: string[];
  /** the CAs the backends' serving certificates must chain to */
  backendCaPem: string;
  /** the DNS name checked in the backends' certificates (haproxy 2.6 checks DNS names only) */
  backendName: string;
  /** the client certificate haproxy presents to the backends */
  backendClient: PemPair;
}

export interface BalancerOptions {
  /**
   * roundrobin (the default) spreads connections; source sends every connection from one
   * address to one backend while it is up (consistent hashing: when it goes, only its clients
   * move), so a test on loopback knows which replica its connections reach
   */
  balance?: 'roundrobin' | 'source';
  /** tcp (the default): connections passed through; http: requests, retried on another server */
  mode?: 'tcp' | 'http';
  /** mode http: TLS ended at haproxy and begun again to the backends (else plain HTTP) */
  tls?: TlsTermination;
  /**
   * mode http: how long a server may take to answer before the request is replayed on another
   * (default 5s: inside the API server's default webhook timeout of 10s)
   */
  responseTimeout?: string;
  /**
   * mode tcp, as kube-proxy routes to a Service: no health checks, no retry, no redispatch — a
   * server is in rotation exactly while the test says so (setServer: its "endpoints"), and a
   * connection sent to a server that refuses it fails
   */
  endpoints?: boolean;
}

/** The files haproxyConfig names, in the balancer's directory. */
export const tlsFiles = (dir: string) => ({
  serving: join(dir, 'serving.pem'),
  clientCa: join(dir, 'client-ca.pem'),
  backendCa: join(dir, 'backend-ca.pem'),
  backendClient: join(dir, 'backend-client.pem'),
});

/**
 * haproxy's configuration: one frontend on 127.0.0.1:port over the backends, TCP or HTTP with
 * layer-7 retries. `dir` holds the TLS files (tlsFiles) and the stats socket.
 */
export function haproxyConfig(
  port: number,
  backends: { host: string; port: number }[],
  opts: BalancerOptions = {},
  dir = '/nonexistent',
): string {
  const http = opts.mode === 'http';
  const tls = http ? opts.tls : undefined;
  const f = tlsFiles(dir);
  const serverTls = tls
    ? // re-encrypted, the backend's certificate verified against the shared CA and name, and
      // haproxy's own client certificate presented (the replicas trust its CA)
      ` ssl verify required ca-file ${f.backendCa} verifyhost ${tls.backendName} sni str(${tls.backendName}) crt ${f.backendClient}`
    : '';
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${join(dir, 'admin.sock')} mode 600 level admin`,
    // a request is replayed from haproxy's buffer: the whole of it must fit (an AdmissionReview
    // with a pod's oldObject is a few KB; tune.bufsize bounds what can be retried)
    ...(http ? ['  tune.bufsize 65536'] : []),
    'defaults',
    `  mode ${http ? 'http' : 'tcp'}`,
    '  timeout connect 1s',
    '  timeout client 60s',
    `  timeout server ${http ? (opts.responseTimeout ?? '5s') : '60s'}`,
    ...(opts.endpoints
      ? ['  retries 0']
      : [
          '  retries 6',
          // a dead server's refused connection goes to the next server at once, not after 3
          // tries; in http mode every retry goes to another server
          '  option redispatch 1',
        ]),
    ...(http
      ? [
          // replay a request whose server refused the connection, closed it or reset it before
          // answering, answered garbage, or did not answer within timeout server
          '  retry-on all-retryable-errors',
          // wait for the whole body before picking a server, so it is in the buffer to replay
          '  option http-buffer-request',
          '  timeout http-request 10s',
          '  timeout http-keep-alive 60s',
        ]
      : []),
    'frontend palisade',
    tls
      ? `  bind 127.0.0.1:${port} ssl crt ${f.serving} ca-file ${f.clientCa} verify required`
      : `  bind 127.0.0.1:${port}`,
    ...(tls?.clientNames?.length
      ? [
          // the webhook's allowedNames, checked where TLS ends
          `  http-request deny deny_status 403 unless { ssl_c_s_dn(CN) -m str ${tls.clientNames.join(' ')} }`,
        ]
      : []),
    '  default_backend replicas',
    'backend replicas',
    ...(opts.balance === 'source'
      ? ['  balance source', '  hash-type consistent']
      : ['  balance roundrobin']),
    // a check may take up to 5 s and three must fail in a row: slow checks on a loaded machine
    // (CI saw the survivors' TLS handshakes time out at 2 s, L6TOUT, at load 12-15, and haproxy
    // answer 503 with every server down) do not take the live replicas out. A dead one is
    // avoided at once: its checks are refused (L4CON, 3 x 200 ms), and its refused connections
    // are redispatched meanwhile (retries 6: two dead replicas still in the rotation cannot use
    // up every attempt).
    '  timeout check 5s',
    ...backends.map(
      (b, i) =>
        `  server r${i} ${b.host}:${b.port}${serverTls}${opts.endpoints ? '' : ' check inter 200 fall 3 rise 2'}`,
    ),
    '',
  ].join('\n');
}

/** One command on haproxy's stats socket; its answer. */
function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(socket);
    let out = '';
    s.on('connect', () => s.write(`${command}\n`));
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

/** The backend row of `show stat` (CSV): its retry and error counters. */
export function backendStats(csv: string, backend = 'replicas'): BackendStats {
  const lines = csv.trim().split('\n');
  const head = (lines[0] ?? '').replace(/^# /, '').split(',');
  const col = (row: string[], name: string) => Number(row[head.indexOf(name)] || 0);
  const row = lines
    .slice(1)
    .map((l) => l.split(','))
    .find((r) => r[0] === backend && r[1] === 'BACKEND');
  if (!row) throw new Error(`haproxy stats: no BACKEND row for ${backend}:\n${csv}`);
  return {
    retries: col(row, 'wretr'),
    redispatches: col(row, 'wredis'),
    errors: col(row, 'eresp') + col(row, 'econ'),
  };
}

/** `r0 UP (L4OK, 0 ms)`: each server's row of `show stat`. */
export function serverStates(csv: string, backend = 'replicas'): string[] {
  const lines = csv.trim().split('\n');
  const head = (lines[0] ?? '').replace(/^# /, '').split(',');
  const at = (row: string[], name: string) => row[head.indexOf(name)] ?? '';
  return lines
    .slice(1)
    .map((l) => l.split(','))
    .filter((r) => r[0] === backend && r[1] !== 'BACKEND' && r[1] !== 'FRONTEND')
    .map(
      (r) =>
        `${r[1]} ${at(r, 'status')} (${at(r, 'check_status')}, ${at(r, 'check_duration')} ms, down ${at(r, 'chkdown')}x)`,
    );
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
  if (opts.mode === 'http' && opts.tls) {
    const f = tlsFiles(dir);
    const t = opts.tls;
    const pem = (p: PemPair) => `${p.certPem.trim()}\n${p.keyPem.trim()}\n`;
    await Promise.all([
      writeFile(f.serving, pem(t.serving), { mode: 0o600 }),
      writeFile(f.clientCa, t.clientCaPem),
      writeFile(f.backendCa, t.backendCaPem),
      writeFile(f.backendClient, pem(t.backendClient), { mode: 0o600 }),
    ]);
  }
  await writeFile(cfg, haproxyConfig(port, backends, opts, dir));
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
    stats: async () => backendStats(await adminCommand(join(dir, 'admin.sock'), 'show stat')),
    servers: async () => serverStates(await adminCommand(join(dir, 'admin.sock'), 'show stat')),
    async setServer(index, state) {
      const out = await adminCommand(join(dir, 'admin.sock'), `set server replicas/r${index} state ${state}`);
      if (out.trim()) throw new Error(`haproxy: set server r${index} ${state}: ${out.trim()}`);
    },
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
