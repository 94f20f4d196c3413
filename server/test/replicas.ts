// Test harness: N Palisade processes (server/main.ts, each its own console port and webhook
// port) against one cluster, with deletion protection's webhook behind one address — haproxy
// (testenv/ha/haproxy.ts) passing TLS through to the replicas — as `protection.webhook.url`, so
// the API server calls one URL whichever replica answers. Each replica can be stopped (SIGTERM),
// killed (SIGKILL), paused (SIGSTOP) and resumed (SIGCONT). With `console: true` the consoles
// sit behind one address too (a second haproxy, `balance source`, as `server.publicURL`), the
// way browsers reach replicas.
//
// With `balancer: 'http'` the webhook's haproxy ends TLS itself and retries at layer 7
// (testenv/ha/haproxy.ts): it serves the shared serving certificate (the Secret
// kube-system/palisade-webhook-serving, made here before the first replica starts, the way a
// replica would make it), requires the API server's client certificate (signed by the CA of the
// cluster's kubeconfig, CN kube-apiserver-webhook-client), and calls the replicas with a client
// certificate of its own (CN palisade-balancer, from a CA made here), which the replicas trust
// through protection.webhook.clientAuth.caFile and allowedNames — no direct caller is heard.
//
// The replicas keep their sessions where the chart puts them for the tests' release
// (kube-system): Secrets in kube-system-sessions (made here when missing), the key
// kube-system/palisade-session-key — so the chart's ServiceAccount (PALISADE_TEST_IDENTITY=chart)
// needs no more than the chart grants.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import { issueClientCertificate } from '../../sim/apiserver/admission/clientCertificate.js';
import { freePort } from '../../sim/real/controlPlane.js';
import { type Balancer, type TlsTermination, startBalancer } from '../../testenv/ha/haproxy.js';
import { kubeconfigCaPem } from '../webhook/clientAuth.js';
import { sharedServingPair } from '../webhook/servingSecret.js';
import { webhookNames } from '../webhook/listener.js';
import { TEST_RELEASE_NAMESPACE, TEST_SESSION_NAMESPACE } from '../rbac/chart.js';
import { palisadeKubeconfig } from './identity.js';

/** palisade.yaml server.session.store of every replica: the chart's layout for the tests' release */
export const REPLICA_SESSION_STORE = {
  kind: 'kubernetes',
  namespace: TEST_SESSION_NAMESPACE,
  keySecret: { namespace: TEST_RELEASE_NAMESPACE, name: 'palisade-session-key' },
};

async function ensureSessionNamespace(kubeconfig: string) {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  await kc
    .makeApiClient(k8s.CoreV1Api)
    .createNamespace({ body: { metadata: { name: TEST_SESSION_NAMESPACE } } })
    .catch((e) => {
      if ((e as { code?: number }).code !== 409) throw e;
    });
}

/** the name on the http balancer's client certificate, the one the replicas allow */
export const BALANCER_CLIENT_CN = 'palisade-balancer';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Replica {
  index: number;
  url: string;
  webhookPort: number;
  child: ChildProcess;
  /** everything it printed so far */
  output(): string;
  signal(s: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export interface Replicas {
  replicas: Replica[];
  /** the replica a Lease holder identity names (hostname_pid_random: matched by its pid) */
  byIdentity(identity: string | undefined): Replica | undefined;
  balancer: Balancer;
  /** the one webhook address the API servers call */
  webhookUrl: string;
  /** with `console: true`: the one console address browsers use, and its balancer */
  consoleUrl?: string;
  consoleBalancer?: Balancer;
  /** start replica `index` again (a new process, same port and configuration): a rolling update's next pod */
  restart(index: number): Promise<Replica>;
  stop(): Promise<void>;
}

async function startReplica(
  index: number,
  kubeconfig: string,
  config: string,
  webhookPort: number,
  env: Record<string, string> = {},
  consolePort = 0,
  startTimeoutMs = 90_000,
): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/main.ts',
      '--port',
      String(consolePort),
      '--kubeconfig',
      kubeconfig,
      '--config',
      config,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        KUBECONFIG: '',
        PALISADE_LOG_LEVEL: 'info',
        PALISADE_LOG_FORMAT: 'json',
        ...env,
      },
    },
  );
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`replica ${index} did not start within ${startTimeoutMs / 1000} s:\n${out}`)),
      startTimeoutMs,
    );
    const look = () => {
      const m = out.match(/Palisade console: (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    child.stdout?.on('data', look);
    void exited.then((code) => fail(new Error(`replica ${index} exited (${code}) at start:\n${out}`)));
  });
  return { index, url, webhookPort, child, output: () => out, signal: (s) => child.kill(s), exited };
}

/**
 * Start n replicas with the given palisade.yaml `protection` keys (webhook port, host, url and
 * register are set here), behind one haproxy frontend; `server` keys are passed as they are
 * (with `console: true`, publicURL is the console balancer's address).
 */
export async function startReplicas(o: {
  kubeconfig: string;
  n: number;
  protection?: Record<string, unknown>;
  /** more palisade.yaml keys for every replica (e.g. controllers) */
  config?: Record<string, unknown>;
  /** more environment for every replica (e.g. a PATH that records fence agent runs) */
  env?: Record<string, string>;
  server?: Record<string, unknown>;
  console?: boolean;
  /**
   * the webhook's balancer: tcp (the default) passes TLS through, and a request in flight on a
   * replica that dies is lost; http ends TLS and replays it on another replica
   */
  balancer?: 'tcp' | 'http';
  /** balancer http: how long a replica may take before its request is replayed (default 5s) */
  responseTimeout?: string;
  /**
   * balancer tcp routing like kube-proxy (testenv/ha/haproxy.ts `endpoints`): no health checks
   * or retries; the test puts replicas in and out of rotation (balancer.setServer)
   */
  endpoints?: boolean;
  /** how long a replica may take to start listening (default 90 s) */
  startTimeoutMs?: number;
}): Promise<Replicas> {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-replicas-'));
  const lbPort = await freePort();
  const ports = await Promise.all(Array.from({ length: o.n }, () => freePort()));
  const webhookUrl = `https://127.0.0.1:${lbPort}`;
  let clientAuth: Record<string, unknown> | undefined;
  let tls: TlsTermination | undefined;
  if (o.balancer === 'http') {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(o.kubeconfig);
    // what every replica would make or read: made first, so the balancer can serve it
    const serving = await sharedServingPair(
      kc,
      { namespace: 'kube-system', name: 'palisade-webhook-serving' },
      webhookNames('127.0.0.1', ['127.0.0.1']),
    );
    // the API server's webhook client certificate is signed by its cluster's CA
    const clientCaPem = kubeconfigCaPem(kc, o.kubeconfig);
    if (!clientCaPem) throw new Error(`${o.kubeconfig}: no certificate-authority to verify callers by`);
    const ca = await createCertificateAuthority('palisade-balancer-ca');
    const client = await issueClientCertificate(ca, BALANCER_CLIENT_CN);
    const caFile = join(dir, 'balancer-ca.pem');
    await writeFile(caFile, ca.certPem);
    clientAuth = { required: true, caFile, allowedNames: [BALANCER_CLIENT_CN] };
    tls = {
      serving,
      clientCaPem,
      clientNames: ['kube-apiserver-webhook-client'],
      backendCaPem: serving.caPem,
      backendName: 'localhost',
      backendClient: client,
    };
  }
  const balancer = await startBalancer(
    lbPort,
    ports.map((port) => ({ host: '127.0.0.1', port })),
    o.balancer === 'http'
      ? { mode: 'http', tls, responseTimeout: o.responseTimeout }
      : { endpoints: o.endpoints },
  );
  let consoleBalancer: Balancer | undefined;
  let consoleUrl: string | undefined;
  let consolePorts: number[] = [];
  const replicas: Replica[] = [];
  let kubeconfig = '';
  const spawnArgs: Parameters<typeof startReplica>[] = [];
  try {
    if (o.console) {
      const port = await freePort();
      consolePorts = await Promise.all(Array.from({ length: o.n }, () => freePort()));
      consoleUrl = `http://127.0.0.1:${port}`;
      consoleBalancer = await startBalancer(
        port,
        consolePorts.map((p) => ({ host: '127.0.0.1', port: p })),
        { balance: 'source' },
      );
    }
    await ensureSessionNamespace(o.kubeconfig);
    const given = o.server as { session?: Record<string, unknown> } | undefined;
    const server = {
      ...o.server,
      session: {
        ...given?.session,
        store: { ...REPLICA_SESSION_STORE, ...(given?.session?.store as object) },
      },
      ...(consoleUrl ? { publicURL: consoleUrl } : {}),
    };
    // the replicas' identity (PALISADE_TEST_IDENTITY=chart: the chart's ServiceAccount)
    kubeconfig = await palisadeKubeconfig(o.kubeconfig);
    for (let i = 0; i < o.n; i++) {
      const config = join(dir, `palisade-${i}.yaml`);
      const protection = {
        ...o.protection,
        webhook: {
          // more webhook keys (certificates, configurations); the address ones are this harness's
          ...(o.protection?.webhook as Record<string, unknown> | undefined),
          port: ports[i],
          host: '127.0.0.1',
          url: webhookUrl,
          register: (o.protection?.webhook as { register?: boolean } | undefined)?.register ?? true,
          ...(clientAuth ? { clientAuth } : {}),
        },
      };
      await writeFile(
        config,
        JSON.stringify({ ...o.config, protection, ...(Object.keys(server).length ? { server } : {}) }),
      );
      spawnArgs.push([i, kubeconfig, config, ports[i], o.env, consolePorts[i], o.startTimeoutMs]);
      replicas.push(await startReplica(...spawnArgs[i]));
    }
    // every replica in the balancer's rotation before a test kills any: haproxy takes a server
    // only after two good health checks, and a test that stopped the first two replicas while
    // the last was still rising found no server at all (without checks: every one ready)
    if (o.endpoints) await Promise.all(replicas.map((r) => untilReady(r.url)));
    else await allUp(balancer);
    if (consoleBalancer) await allUp(consoleBalancer);
  } catch (e) {
    for (const r of replicas) r.signal('SIGKILL');
    await balancer.stop();
    await consoleBalancer?.stop();
    throw e;
  }
  return {
    replicas,
    balancer,
    webhookUrl,
    byIdentity: (identity) =>
      identity ? replicas.find((r) => identity.includes(`_${r.child.pid}_`)) : undefined,
    consoleUrl,
    consoleBalancer,
    async restart(index) {
      const old = replicas[index];
      if (old.child.exitCode === null && old.child.signalCode === null)
        throw new Error(`replica ${index} is still running`);
      replicas[index] = await startReplica(...spawnArgs[index]);
      return replicas[index];
    },
    async stop() {
      for (const r of replicas) {
        if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
        r.signal('SIGCONT');
        r.signal('SIGTERM');
        const killer = setTimeout(() => r.signal('SIGKILL'), 15_000);
        await r.exited;
        clearTimeout(killer);
      }
      await balancer.stop();
      await consoleBalancer?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Until the replica's /readyz answers 200 (its informers synced, its webhook serving). */
export async function untilReady(url: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    const r = await fetch(`${url}/readyz`).then(
      async (x) => [x.status, await x.text()] as const,
      (e) => [0, String(e)] as const,
    );
    if (r[0] === 200) return;
    last = `${r[0]} ${r[1]}`;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${url}/readyz not 200 within ${timeoutMs} ms: ${last}`);
}

async function allUp(b: Balancer, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  let states: string[] = [];
  while (Date.now() < until) {
    states = await b.servers();
    if (states.length && states.every((l) => / UP \(/.test(l))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the balancer did not take every replica within ${timeoutMs} ms: ${states.join('; ')}`);
}
