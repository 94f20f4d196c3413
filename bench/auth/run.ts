// `npm run bench:auth`: what the request gate and per-person authorization cost, in one run on
// the embedded cluster: a tRPC read through the gate with a bearer token the console has
// already checked (cached) and with one it has not (a SelfSubjectReview per cluster), with a
// session cookie, and a read whose access answer is cached against one asked of the cluster
// (a SelfSubjectAccessReview). Figures and ratios go to bench/auth/RESULTS.md, folded into
// bench/RESULTS.md.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { judgeRequest } from '../../lib/auth/gate.js';
import { startConsole } from '../../server/console.js';
import { clustersFromKubeconfig } from '../../server/kube/kubeconfig.js';
import { startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import { benchResults, fmt, type Row } from '../report.js';

const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quick = process.argv.includes('--quick');
const N = quick ? 300 : 2000;
const FRESH = quick ? 40 : 200;
const log = (m: string) => console.log(`[bench:auth] ${m}`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      { host: '127.0.0.1', port, path, agent, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${path}: HTTP ${res.statusCode}`));
          resolve(Number(process.hrtime.bigint() - t0) / 1e6);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface Timing {
  n: number;
  perS: number;
  p50: number;
  p99: number;
}

async function timed(n: number, one: (i: number) => Promise<number>): Promise<Timing> {
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) ms.push(await one(i));
  const wall = performance.now() - t0;
  ms.sort((a, b) => a - b);
  return { n, perS: (n / wall) * 1000, p50: ms[Math.floor(n * 0.5)], p99: ms[Math.floor(n * 0.99)] };
}

function row(metric: string, t: Timing, note = '', target?: Row['target']): Row {
  return {
    section: 'gate',
    metric,
    value: t.p50,
    unit: 'ms p50',
    target,
    note: `${t.n} sequential requests, ${fmt(t.perS)} /s, p99 ${fmt(t.p99)} ms${note ? `; ${note}` : ''}`,
  };
}

async function main() {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'palisade-bench-auth-'));
  const scenario = parseScenario(
    `name: bench-auth\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-a, racks: [{ name: a1, count: 3 }] }]\nworkloads: []\n`,
    'bench auth',
  );
  const cluster = await startEmbeddedCluster({ scenario, kubeconfigPath: join(dir, 'kubeconfig') });
  const c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    fencing: false,
    // hundreds of fresh tokens of one ServiceAccount: what a review costs is measured, not the limit
    auth: { limits: { authenticationsPerUserPerMinute: 1_000_000 } },
  });
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  const port = c.port;
  const viewer = { authorization: `Bearer ${cluster.users.viewer.token}` };
  const rows: Row[] = [];
  try {
    // the gate's own rules, without I/O
    const gateReq = {
      method: 'POST',
      path: '/api/trpc/infra.act',
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      contentType: 'application/json',
      credential: 'session' as const,
    };
    const rules = { port, allowed: ['palisade.internal', '*.corp.example'] };
    const g0 = performance.now();
    const G = 200_000;
    for (let i = 0; i < G; i++) judgeRequest(gateReq, rules);
    const gateNs = ((performance.now() - g0) * 1e6) / G;
    rows.push({
      section: 'gate',
      metric: 'judgeRequest (pure rules)',
      value: gateNs,
      unit: 'ns',
      note: `${G} calls`,
    });

    log('warm-up');
    await timed(100, () => get(port, '/api/trpc/clusters.list', viewer));
    const healthz = await timed(N, () => get(port, '/healthz', {}));
    rows.push(row('GET /healthz (gate, no credentials)', healthz));
    const bearer = await timed(N, () => get(port, '/api/trpc/clusters.list', viewer));
    rows.push(
      row(
        'tRPC clusters.list, bearer token already checked',
        bearer,
        'SelfSubjectReview answer cached 10 s',
        {
          op: '<=',
          value: 5,
        },
      ),
    );

    const signIn = await fetch(`${c.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: c.url },
      body: JSON.stringify({ token: cluster.users.viewer.token }),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const session = await timed(N, () => get(port, '/api/trpc/clusters.list', { cookie }));
    rows.push(row('tRPC clusters.list, session cookie', session, '', { op: '<=', value: 5 }));

    log(`minting ${FRESH} ServiceAccount tokens`);
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'bench' } },
    });
    const tokens: string[] = [];
    for (let i = 0; i < FRESH; i++) {
      const tr = await core.createNamespacedServiceAccountToken({
        namespace: 'default',
        name: 'bench',
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [], expirationSeconds: 3600 },
        },
      });
      tokens.push(tr.status!.token);
    }
    const fresh = await timed(FRESH, (i) =>
      get(port, '/api/trpc/clusters.list', { authorization: `Bearer ${tokens[i]}` }),
    );
    rows.push(
      row(
        'tRPC clusters.list, a bearer token seen for the first time',
        fresh,
        'one SelfSubjectReview to the cluster',
        { op: '<=', value: 50 },
      ),
    );

    const node = 'a1-1';
    const path = `/api/trpc/nodes.get?input=${encodeURIComponent(JSON.stringify({ cluster: 'palisade-embedded', name: node }))}`;
    const cachedAccess = await timed(N, () => get(port, path, viewer));
    rows.push(row('tRPC nodes.get, access answer cached', cachedAccess, '', { op: '<=', value: 5 }));
    const missAccess = await timed(FRESH, () => {
      c.auth.access.forget({ kind: 'token', token: cluster.users.viewer.token });
      return get(port, path, viewer);
    });
    rows.push(
      row('tRPC nodes.get, access asked of the cluster', missAccess, 'one SelfSubjectAccessReview', {
        op: '<=',
        value: 50,
      }),
    );

    const ratio = (a: Timing, b: Timing) => a.p50 / b.p50;
    rows.push({
      section: 'ratios',
      metric: 'first-time token / checked token',
      value: ratio(fresh, bearer),
      unit: 'x',
      note: 'p50',
    });
    rows.push({
      section: 'ratios',
      metric: 'access asked / access cached',
      value: ratio(missAccess, cachedAccess),
      unit: 'x',
      note: 'p50',
    });
    rows.push({
      section: 'ratios',
      metric: 'session cookie / bearer token',
      value: ratio(session, bearer),
      unit: 'x',
      note: 'p50',
    });
  } finally {
    await c.stop();
    await cluster.stop();
    agent.destroy();
    await rm(dir, { recursive: true, force: true });
  }

  const text = benchResults({
    title: 'Sign-in and authorization benchmark',
    command: `npm run bench:auth${quick ? ' -- --quick' : ''}`,
    durationS: (Date.now() - started) / 1000,
    setup: [
      'One process: the embedded cluster (3 nodes, demo users) and the console (`startConsole`, no UI), the load generator beside them on 127.0.0.1; requests one at a time over one kept-alive connection, so the figures are latencies, not throughput under load.',
      'The viewer (tokens.csv) reads; first-time tokens are ServiceAccount tokens minted with TokenRequest beforehand; a cache miss is forced with `access.forget` before each request.',
    ],
    rows,
  });
  await writeFile(RESULTS, `${text}\n`);
  console.log(text);
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
