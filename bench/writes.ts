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
  /** merge-PATCHes before the trials, not counted (JIT warm-up) */
  warmup: number;
  /** updates per trial of each variant */
  updates: number;
  /** the machine is shared and noisy: each variant runs this many times, the median counts */
  trials: number;
  concurrency: number;
  /** per trial */
  budgetMs: number;
}

const NS = 'bench-write';
const SECTION = 'writes';
const TARGET = { op: '>=', value: 3000 } as const;

// every update must change the object: a no-op write is not committed, so it would
// not measure a write at all
let seq = 0;

export async function writePhase(server: ServerChild, cfg: WriteConfig): Promise<Row[]> {
  const c = new Client(server.endpoint, cfg.concurrency);
  try {
    await ensureNamespace(c, NS);
    const created = await measured(server, () => createPods(c, cfg));
    const creates = `pod creates (${cfg.concurrency} in flight)`;
    // first writes run unoptimised code; a server that has run a while is what counts
    await patchPods(c, { ...cfg, updates: cfg.warmup }, MERGE);
    return [
      { section: SECTION, metric: creates, value: rate(created.r), unit: '/s', note: created.note },
      await variant(server, cfg, 'pod updates, merge-PATCH', () => patchPods(c, cfg, MERGE), TARGET),
      await variant(server, cfg, 'pod updates, PUT (read-modify-write, rv)', () => putPods(c, cfg), TARGET),
      await variant(server, cfg, 'pod updates, strategic PATCH', () => patchPods(c, cfg, STRATEGIC)),
    ];
  } finally {
    c.close();
  }
}

/** Runs one update variant cfg.trials times and reports the median trial. */
async function variant(
  server: ServerChild,
  cfg: WriteConfig,
  metric: string,
  run: () => Promise<PoolResult>,
  target?: Row['target'],
): Promise<Row> {
  const trials: { r: PoolResult; note: string }[] = [];
  for (let t = 0; t < cfg.trials; t++) trials.push(await measured(server, run));
  const sorted = [...trials].sort((a, b) => rate(a.r) - rate(b.r));
  const mid = sorted[Math.floor(sorted.length / 2)];
  const all = trials.map((t) => rate(t.r).toFixed(0)).join(' / ');
  const note = `median of ${cfg.trials} trials (${all} /s); median trial: ${mid.note}`;
  return { section: SECTION, metric, value: rate(mid.r), unit: '/s', target, note };
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
    const body = annotationPatch(seq++);
    return (await c.expect(200, 'PATCH', path, { body, contentType, discard: true })).totalMs;
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
    obj.metadata.annotations = { ...obj.metadata.annotations, 'bench.palisade.dev/seq': String(seq++) };
    const r = await c.expect(200, 'PUT', `/api/v1/namespaces/${NS}/pods/${name}`, {
      body: JSON.stringify(obj),
    });
    latest.set(name, JSON.parse(r.body.toString('utf8')));
    return r.totalMs;
  });
}
