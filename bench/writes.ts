// Phase 1: write throughput. Create a set of pods, then update them with bounded
// concurrency over keep-alive HTTPS: merge-PATCH (what controllers send), strategic
// PATCH (kubectl's default) and read-modify-write PUT with optimistic concurrency.
import { performance } from 'node:perf_hooks';
import type { ServerChild } from './child.js';
import { MERGE, STRATEGIC, cpuPercent, ensureNamespace, poolNote, rate } from './common.js';
import { annotationPatch, podBody, podName } from './fixtures.js';
import { Client, type PoolResult, runPool } from './http.js';
import type { Row } from './report.js';

export interface WriteConfig {
  pods: number;
  updates: number;
  concurrency: number;
  budgetMs: number;
}

const NS = 'bench-write';
const SECTION = 'writes';
const TARGET = { op: '>=', value: 3000 } as const;

export async function writePhase(server: ServerChild, cfg: WriteConfig): Promise<Row[]> {
  const c = new Client(server.endpoint, cfg.concurrency);
  try {
    await ensureNamespace(c, NS);
    const rows: Row[] = [];
    const created = await measured(server, () => createPods(c, cfg));
    rows.push({
      section: SECTION,
      metric: `pod creates (${cfg.concurrency} in flight)`,
      value: rate(created.r),
      unit: '/s',
      note: created.note,
    });
    const merge = await measured(server, () => patchPods(c, cfg, MERGE));
    rows.push({
      section: SECTION,
      metric: 'pod updates, merge-PATCH',
      value: rate(merge.r),
      unit: '/s',
      target: TARGET,
      note: merge.note,
    });
    const put = await measured(server, () => putPods(c, cfg));
    rows.push({
      section: SECTION,
      metric: 'pod updates, PUT (read-modify-write, rv)',
      value: rate(put.r),
      unit: '/s',
      target: TARGET,
      note: put.note,
    });
    const sp = await measured(server, () => patchPods(c, cfg, STRATEGIC));
    rows.push({
      section: SECTION,
      metric: 'pod updates, strategic PATCH',
      value: rate(sp.r),
      unit: '/s',
      note: sp.note,
    });
    return rows;
  } finally {
    c.close();
  }
}

/** Runs a pool and notes its latencies and how busy the server was meanwhile. */
async function measured(
  server: ServerChild,
  run: () => Promise<PoolResult>,
): Promise<{ r: PoolResult; note: string }> {
  const before = await server.stats();
  const t0 = performance.now();
  const r = await run();
  const after = await server.stats();
  const cpu = cpuPercent(before, after, performance.now() - t0);
  return { r, note: `${poolNote(r)}, server CPU ${cpu.toFixed(0)}%` };
}

function createPods(c: Client, cfg: WriteConfig) {
  return runPool({ count: cfg.pods, concurrency: cfg.concurrency, budgetMs: cfg.budgetMs }, async (i) => {
    const body = podBody(i, { namespace: NS, nodes: 100 });
    return (await c.expect(201, 'POST', `/api/v1/namespaces/${NS}/pods`, { body, discard: true })).totalMs;
  });
}

function patchPods(c: Client, cfg: WriteConfig, contentType: string) {
  return runPool({ count: cfg.updates, concurrency: cfg.concurrency, budgetMs: cfg.budgetMs }, async (i) => {
    const path = `/api/v1/namespaces/${NS}/pods/${podName(i % cfg.pods)}`;
    return (await c.expect(200, 'PATCH', path, { body: annotationPatch(i), contentType, discard: true }))
      .totalMs;
  });
}

/**
 * Read-modify-write as client-go's Update does: send the last object seen, with its
 * resourceVersion, and keep the answer as the next base. Pods are taken round-robin,
 * so with concurrency < pods no two writes race on one pod and a 409 means a bug.
 */
async function putPods(c: Client, cfg: WriteConfig) {
  const list = JSON.parse(
    (await c.expect(200, 'GET', `/api/v1/namespaces/${NS}/pods`)).body.toString('utf8'),
  );
  const latest = new Map<string, any>(list.items.map((p: any) => [p.metadata.name, p]));
  return runPool({ count: cfg.updates, concurrency: cfg.concurrency, budgetMs: cfg.budgetMs }, async (i) => {
    const name = podName(i % cfg.pods);
    const obj = latest.get(name);
    if (!obj) throw new Error(`pod ${name} missing from the list`);
    obj.metadata.annotations = { ...obj.metadata.annotations, 'bench.palisade.dev/seq': String(i) };
    const r = await c.expect(200, 'PUT', `/api/v1/namespaces/${NS}/pods/${name}`, {
      body: JSON.stringify(obj),
    });
    latest.set(name, JSON.parse(r.body.toString('utf8')));
    return r.totalMs;
  });
}
