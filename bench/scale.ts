// Phase 3: scale. Load nodes and pods through the HTTP API as a cluster's controllers
// and kubelets would (create, then a status write), then time lists over the lot and
// read the server's memory after a forced GC.
import { performance } from 'node:perf_hooks';
import type { ServerChild } from './child.js';
import { MERGE, cpuPercent, ensureNamespace, poolNote, sleep } from './common.js';
import { nodeBody, nodeName, nodeStatusPatch, podBody, podName, podStatusPatch } from './fixtures.js';
import { Client, type PoolResult, type Reply, median, runPool } from './http.js';
import { kubeletWatches } from './kubelets.js';
import { GiB, MiB, type Row } from './report.js';

export interface ScaleConfig {
  nodes: number;
  pods: number;
  namespaces: number;
  concurrency: number;
  /** for the whole load (nodes and pods); running out is reported, not fatal */
  loadBudgetMs: number;
  smallListRuns: number;
  kubelets: { watchers: number; updates: number; concurrency: number; budgetMs: number };
}

const SECTION = 'scale';
const LIST_TIMEOUT_MS = 120_000;
const nsName = (i: number) => `ns-${String(i).padStart(3, '0')}`;

export async function scalePhase(
  server: ServerChild,
  cfg: ScaleConfig,
): Promise<{ rows: Row[]; podsLoaded: number }> {
  const c = new Client(server.endpoint, cfg.concurrency);
  try {
    const load = await loadAll(server, c, cfg);
    const rows = [...load.rows];
    const idle = await server.stats({ gc: true });
    rows.push({
      section: SECTION,
      metric: 'server RSS after forced GC',
      value: idle.rss / GiB,
      unit: 'GiB',
      target: { op: '<=', value: 2 },
      note: `heap used ${(idle.heapUsed / MiB).toFixed(0)} MiB, external ${(idle.external / MiB).toFixed(0)} MiB${idle.gcForced ? '' : ', GC NOT forced'}`,
    });
    rows.push(...(await fullLists(server, c, load.pods)));
    rows.push(...(await smallLists(c, cfg)));
    const after = await server.stats({ gc: true });
    rows.push({
      section: SECTION,
      metric: 'server RSS after lists, forced GC',
      value: after.rss / GiB,
      unit: 'GiB',
      note: `heap used ${(after.heapUsed / MiB).toFixed(0)} MiB`,
    });
    // last: thousands of open watches would skew every figure above
    const kubelets = {
      ...cfg.kubelets,
      watchers: Math.min(cfg.nodes, cfg.kubelets.watchers),
      pods: load.pods,
      nodes: cfg.nodes,
    };
    rows.push(...(await kubeletWatches(server, c, { ...kubelets, nsName, namespaces: cfg.namespaces })));
    return { rows, podsLoaded: load.pods };
  } finally {
    c.close();
  }
}

// ---- load -------------------------------------------------------------------------

async function loadAll(server: ServerChild, c: Client, cfg: ScaleConfig) {
  const before = await server.stats({ reset: true });
  const t0 = performance.now();
  const deadline = t0 + cfg.loadBudgetMs;
  const nodes = await runPool(
    { count: cfg.nodes, concurrency: cfg.concurrency, budgetMs: cfg.loadBudgetMs },
    (i) => loadNode(c, i),
  );
  for (let i = 0; i < cfg.namespaces; i++) await ensureNamespace(c, nsName(i));
  const podBudget = Math.max(0, deadline - performance.now());
  const pods = await runPool({ count: cfg.pods, concurrency: cfg.concurrency, budgetMs: podBudget }, (i) =>
    loadPod(c, cfg, i),
  );
  const ms = performance.now() - t0;
  const after = await server.stats();
  const objects = nodes.ok + pods.ok;
  const rows: Row[] = [
    {
      section: SECTION,
      metric: `load ${nodes.ok} nodes + ${pods.ok} pods (create + status)`,
      value: ms / 1000,
      unit: 's',
      target: { op: '<=', value: 180 },
      note: `${((2 * objects) / (ms / 1000)).toFixed(0)} requests/s, ${cfg.concurrency} in flight; server CPU ${cpuPercent(before, after, ms).toFixed(0)}%, peak RSS ${(after.peakRss / GiB).toFixed(2)} GiB, longest loop stall ${after.loopMaxMs.toFixed(0)} ms`,
    },
    loadRow('node create+status', nodes),
    loadRow('pod create+status', pods),
  ];
  return { rows, pods: pods.ok };
}

function loadRow(what: string, r: PoolResult): Row {
  return {
    section: SECTION,
    metric: `${what} pairs`,
    value: r.elapsedMs > 0 ? r.ok / (r.elapsedMs / 1000) : 0,
    unit: '/s',
    note: poolNote(r),
  };
}

async function loadNode(c: Client, i: number): Promise<number> {
  const a = await c.expect(201, 'POST', '/api/v1/nodes', { body: nodeBody(i), discard: true });
  const b = await c.expect(200, 'PATCH', `/api/v1/nodes/${nodeName(i)}/status`, {
    body: nodeStatusPatch(i),
    contentType: MERGE,
    discard: true,
  });
  return a.totalMs + b.totalMs;
}

async function loadPod(c: Client, cfg: ScaleConfig, i: number): Promise<number> {
  const p = { namespace: nsName(i % cfg.namespaces), nodes: cfg.nodes };
  const a = await c.expect(201, 'POST', `/api/v1/namespaces/${p.namespace}/pods`, {
    body: podBody(i, p),
    discard: true,
  });
  const path = `/api/v1/namespaces/${p.namespace}/pods/${podName(i)}/status`;
  const b = await c.expect(200, 'PATCH', path, {
    body: podStatusPatch(i, p),
    contentType: MERGE,
    discard: true,
  });
  return a.totalMs + b.totalMs;
}

// ---- full list --------------------------------------------------------------------

interface ListRun {
  replies: Reply[];
  /** client JSON.parse of the first reply (0 when bodies were discarded) */
  parseMs: number;
  items: number;
  peakRss: number;
  loopMaxMs: number;
  healthMaxMs: number;
}

/**
 * `parallel` simultaneous GETs of `path`, timed to first and last byte, then JSON.parse
 * on the client (single list only); meanwhile /healthz is polled on its own connection
 * to see whether the server still answers anyone else while it serves the list.
 */
async function listRun(server: ServerChild, c: Client, path: string, parallel = 1): Promise<ListRun> {
  await server.stats({ gc: true, reset: true });
  const probe = new Client(c.endpoint, 1);
  let done = false;
  let healthMaxMs = 0;
  const poll = (async () => {
    for (let n = 0; !done && n < 5_000; n++) {
      healthMaxMs = Math.max(healthMaxMs, (await probe.expect(200, 'GET', '/healthz')).totalMs);
      await sleep(20);
    }
  })();
  try {
    const opts = { timeoutMs: LIST_TIMEOUT_MS, discard: parallel > 1 };
    const replies = await Promise.all(
      Array.from({ length: parallel }, () => c.expect(200, 'GET', path, opts)),
    );
    // stop probing before the client parses: a probe answered during JSON.parse would be
    // charged the client's parse time
    done = true;
    await poll.catch(() => undefined);
    let parseMs = 0;
    let items = Number.NaN;
    if (parallel === 1) {
      const t0 = performance.now();
      items = JSON.parse(replies[0].body.toString('utf8')).items.length;
      parseMs = performance.now() - t0;
    }
    const s = await server.stats();
    return { replies, parseMs, items, peakRss: s.peakRss, loopMaxMs: s.loopMaxMs, healthMaxMs };
  } finally {
    done = true;
    await poll.catch(() => undefined);
    probe.close();
  }
}

const ttlb = (r: ListRun) => Math.max(...r.replies.map((x) => x.totalMs));
const ttfb = (r: ListRun) => Math.max(...r.replies.map((x) => x.ttfbMs));

function stallNote(runs: ListRun[]): string {
  const rss = Math.max(...runs.map((r) => r.peakRss)) / GiB;
  const loop = Math.max(...runs.map((r) => r.loopMaxMs));
  const health = Math.max(...runs.map((r) => r.healthMaxMs));
  return `server peak RSS ${rss.toFixed(2)} GiB, longest event-loop stall ${loop.toFixed(0)} ms, slowest /healthz meanwhile ${health.toFixed(0)} ms`;
}

async function fullLists(server: ServerChild, c: Client, expected: number): Promise<Row[]> {
  const path = '/api/v1/pods';
  const cold = await listRun(server, c, path);
  const warm = [await listRun(server, c, path), await listRun(server, c, path)];
  // any create drops the sorted key index, so this is what a list costs in a cluster with churn
  const ns = nsName(0);
  await c.expect(201, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    body: podBody(10_000_000, { namespace: ns, nodes: 1 }),
  });
  const churn = await listRun(server, c, path);
  // two informers starting at once (a controller restart) is ordinary
  const pair = await listRun(server, c, path, 2);
  const single = [cold, ...warm, churn];
  const target = { op: '<=', value: 3000 } as const;
  const w = warm.reduce((a, b) => (ttlb(a) >= ttlb(b) ? a : b));
  const bytes = w.replies[0].bytes;
  const size = `${(bytes / MiB).toFixed(0)} MiB, ${w.items} items, ${(bytes / w.items).toFixed(0)} B/pod`;
  const metric = (m: string) => `GET /api/v1/pods, ${m}`;
  const rows: Row[] = [
    {
      section: SECTION,
      metric: metric('first after load: last byte'),
      value: ttlb(cold),
      unit: 'ms',
      target,
      note: `first byte ${ttfb(cold).toFixed(0)} ms`,
    },
    { section: SECTION, metric: metric('warm (slower of 2): first byte'), value: ttfb(w), unit: 'ms' },
    {
      section: SECTION,
      metric: metric('warm (slower of 2): last byte'),
      value: ttlb(w),
      unit: 'ms',
      target,
      note: size,
    },
    {
      section: SECTION,
      metric: metric('warm (slower of 2): + JSON.parse'),
      value: ttlb(w) + w.parseMs,
      unit: 'ms',
      target,
      note: `client JSON.parse ${w.parseMs.toFixed(0)} ms`,
    },
    {
      section: SECTION,
      metric: metric('after one create: last byte'),
      value: ttlb(churn),
      unit: 'ms',
      target,
      note: `first byte ${ttfb(churn).toFixed(0)} ms`,
    },
    {
      section: SECTION,
      metric: 'server during single full pod lists',
      value: Math.max(...single.map((r) => r.peakRss)) / GiB,
      unit: 'GiB peak RSS',
      note: stallNote(single),
    },
    {
      section: SECTION,
      metric: 'two concurrent full pod lists: last byte',
      value: ttlb(pair),
      unit: 'ms',
      note: `first byte ${ttfb(pair).toFixed(0)} ms; ${stallNote([pair])}`,
    },
  ];
  const bad = single.filter((r) => r.items < expected).length;
  if (bad)
    rows.push({
      section: SECTION,
      metric: 'full lists with every pod',
      value: single.length - bad,
      unit: `of ${single.length}`,
      target: { op: '>=', value: single.length },
    });
  return rows;
}

// ---- smaller lists ----------------------------------------------------------------

async function timed(
  c: Client,
  path: string,
  runs: number,
): Promise<{ ms: number; items: number; bytes: number }> {
  const ms: number[] = [];
  let items = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const r = await c.expect(200, 'GET', path, { timeoutMs: LIST_TIMEOUT_MS });
    ms.push(r.totalMs);
    items = JSON.parse(r.body.toString('utf8')).items.length;
    bytes = r.bytes;
  }
  return { ms: median(ms), items, bytes };
}

async function smallLists(c: Client, cfg: ScaleConfig): Promise<Row[]> {
  const runs = cfg.smallListRuns;
  const cases: [string, string][] = [
    ['namespaced list (one namespace)', `/api/v1/namespaces/${nsName(7)}/pods`],
    ['label-selector list, all namespaces (app=app-7)', '/api/v1/pods?labelSelector=app%3Dapp-7'],
    [
      'label-selector list, one namespace (app=app-7)',
      `/api/v1/namespaces/${nsName(7)}/pods?labelSelector=app%3Dapp-7`,
    ],
    [
      "field-selector list (a kubelet's spec.nodeName)",
      `/api/v1/pods?fieldSelector=spec.nodeName%3D${nodeName(7)}`,
    ],
    ['GET /api/v1/nodes', '/api/v1/nodes'],
  ];
  const rows: Row[] = [];
  for (const [metric, path] of cases) {
    const t = await timed(c, path, runs);
    rows.push({
      section: SECTION,
      metric,
      value: t.ms,
      unit: 'ms',
      note: `median of ${runs}; ${t.items} items, ${(t.bytes / 1024).toFixed(0)} KiB`,
    });
  }
  // a create drops the sorted key index that namespaced lists binary-search
  const ns = nsName(7);
  await c.expect(201, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    body: podBody(10_000_001, { namespace: ns, nodes: 1 }),
  });
  const after = await c.expect(200, 'GET', `/api/v1/namespaces/${ns}/pods`, {
    timeoutMs: LIST_TIMEOUT_MS,
    discard: true,
  });
  rows.push({
    section: SECTION,
    metric: 'namespaced list right after one create',
    value: after.totalMs,
    unit: 'ms',
    note: 'single run',
  });
  rows.push(await pagedList(c));
  return rows;
}

/** The whole pod list in pages of 500, as client-go reflectors fetch it. */
async function pagedList(c: Client): Promise<Row> {
  const t0 = performance.now();
  let token = '';
  let pages = 0;
  let items = 0;
  for (; pages < 2_000; pages++) {
    const path = `/api/v1/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
    const list = JSON.parse(
      (await c.expect(200, 'GET', path, { timeoutMs: LIST_TIMEOUT_MS })).body.toString('utf8'),
    );
    items += list.items.length;
    token = list.metadata.continue ?? '';
    if (!token) break;
  }
  const ms = performance.now() - t0;
  return {
    section: SECTION,
    metric: 'paged pod list (limit=500), whole walk',
    value: ms,
    unit: 'ms',
    note: `${pages + 1} pages, ${items} items, client parse included`,
  };
}
