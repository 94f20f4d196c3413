// Phase 2: watch fan-out. Ten raw HTTPS watch streams on one namespace from a known
// resourceVersion while one writer updates pods; every watcher must see every write,
// in commit order, with nothing missing and nothing extra.
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { Endpoint, ServerChild } from './child.js';
import { MERGE, cpuPercent, ensureNamespace, poolNote, rate, sleep } from './common.js';
import { annotationPatch, podBody, podName } from './fixtures.js';
import { Client, percentile, runPool } from './http.js';
import type { Row } from './report.js';

export interface WatchConfig {
  watchers: number;
  pods: number;
  updates: number;
  writerConcurrency: number;
  budgetMs: number;
  /** how long watchers may trail the writer before the phase gives up on them */
  drainMs: number;
}

const NS = 'bench-watch';
const SECTION = 'watch';
const RV_KEY = '"resourceVersion":"';

/** One watch stream: counts newline-delimited events and records each one's resourceVersion. */
export class WatchStream {
  readonly rvs: number[] = [];
  readonly at: number[] = [];
  malformed = 0;
  ended = false;
  private tail = '';
  private readonly decoder = new StringDecoder('utf8');
  private req?: ClientRequest;

  open(ep: Endpoint, path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      // a socket of its own, as every informer has
      this.req = https.request(
        {
          host: ep.host,
          port: ep.port,
          path,
          ca: ep.ca,
          agent: false,
          headers: { authorization: `Bearer ${ep.token}` },
        },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          res.on('data', (c: Buffer) => this.onData(c));
          res.on('end', () => (this.ended = true));
          res.on('error', () => (this.ended = true));
          // the time-out guards the handshake only: a quiet watch is not a dead one
          this.req?.setTimeout(0);
          resolve();
        },
      );
      this.req.on('error', (e) => {
        this.ended = true;
        reject(e);
      });
      this.req.setTimeout(30_000, () => this.req?.destroy(new Error('watch: no headers within 30 s')));
      this.req.end();
    });
  }

  close() {
    this.req?.destroy();
  }

  private onData(chunk: Buffer) {
    const text = this.tail + this.decoder.write(chunk);
    const now = performance.now();
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.line(text, start, nl, now);
      start = nl + 1;
    }
    this.tail = text.slice(start);
  }

  // Only the event type and resourceVersion matter here; a full JSON.parse per event
  // would make the load generator, not the server, the bottleneck on two cores.
  private line(text: string, start: number, end: number, now: number) {
    const k = text.indexOf(RV_KEY, start);
    if (!text.startsWith('{"type":"MODIFIED"', start) || k < 0 || k > end) {
      this.malformed++;
      return;
    }
    const from = k + RV_KEY.length;
    this.rvs.push(Number(text.slice(from, text.indexOf('"', from))));
    this.at.push(now);
  }
}

interface Check {
  missing: number;
  outOfOrder: number;
  extra: number;
}

function check(expected: number[], got: number[]): Check {
  const want = new Set(expected);
  const seen = new Set(got);
  let outOfOrder = 0;
  for (let i = 1; i < got.length; i++) if (got[i] <= got[i - 1]) outOfOrder++;
  return {
    missing: expected.filter((rv) => !seen.has(rv)).length,
    outOfOrder,
    extra: got.filter((rv) => !want.has(rv)).length,
  };
}

export async function watchPhase(server: ServerChild, cfg: WatchConfig): Promise<Row[]> {
  const c = new Client(server.endpoint, cfg.writerConcurrency);
  const streams = Array.from({ length: cfg.watchers }, () => new WatchStream());
  try {
    await ensureNamespace(c, NS);
    await runPool(
      { count: cfg.pods, concurrency: cfg.writerConcurrency, budgetMs: cfg.budgetMs },
      async (i) => {
        const body = podBody(i, { namespace: NS, nodes: 100 });
        return (await c.expect(201, 'POST', `/api/v1/namespaces/${NS}/pods`, { body, discard: true }))
          .totalMs;
      },
    );
    const list = JSON.parse(
      (await c.expect(200, 'GET', `/api/v1/namespaces/${NS}/pods?limit=1`)).body.toString('utf8'),
    );
    const from = list.metadata.resourceVersion as string;
    const path = `/api/v1/namespaces/${NS}/pods?watch=true&resourceVersion=${from}&timeoutSeconds=600`;
    await Promise.all(streams.map((s) => s.open(server.endpoint, path)));
    const live = await measure(server, c, streams, cfg);
    for (const s of streams) s.close();
    return [...live.rows, await replay(server, path, cfg, live.written)];
  } finally {
    for (const s of streams) s.close();
    c.close();
  }
}

/**
 * The same events again, to fresh watchers from the same resourceVersion: the server
 * replays its backlog as fast as it can, so this is fan-out without the write path.
 */
async function replay(server: ServerChild, path: string, cfg: WatchConfig, written: number[]): Promise<Row> {
  const streams = Array.from({ length: cfg.watchers }, () => new WatchStream());
  try {
    const t0 = performance.now();
    await Promise.all(streams.map((s) => s.open(server.endpoint, path)));
    const deadline = t0 + cfg.drainMs;
    while (streams.some((s) => s.rvs.length < written.length && !s.ended) && performance.now() < deadline) {
      await sleep(5);
    }
    const seconds = (Math.max(...streams.map((s) => s.at[s.at.length - 1] ?? t0)) - t0) / 1000;
    const total = streams.reduce((n, s) => n + s.rvs.length, 0);
    const expected = [...written].sort((a, b) => a - b);
    const complete = streams.filter((s) => {
      const k = check(expected, s.rvs);
      return !k.missing && !k.outOfOrder && !k.extra && !s.malformed;
    }).length;
    return {
      section: SECTION,
      metric: `backlog replay to ${streams.length} new watchers`,
      value: seconds > 0 ? total / seconds : 0,
      unit: 'events/s',
      note: `fan-out without writes: ${total} events in ${seconds.toFixed(2)} s; ${complete} of ${streams.length} watchers got all ${written.length} in order`,
    };
  } finally {
    for (const s of streams) s.close();
  }
}

async function measure(
  server: ServerChild,
  c: Client,
  streams: WatchStream[],
  cfg: WatchConfig,
): Promise<{ rows: Row[]; written: number[] }> {
  const written: number[] = [];
  const ackAt = new Map<number, number>();
  const before = await server.stats({ reset: true });
  const t0 = performance.now();
  const w = await runPool(
    { count: cfg.updates, concurrency: cfg.writerConcurrency, budgetMs: cfg.budgetMs },
    async (i) => {
      const path = `/api/v1/namespaces/${NS}/pods/${podName(i % cfg.pods)}`;
      const r = await c.expect(200, 'PATCH', path, { body: annotationPatch(i), contentType: MERGE });
      const rv = Number(JSON.parse(r.body.toString('utf8')).metadata.resourceVersion);
      written.push(rv);
      ackAt.set(rv, performance.now());
      return r.totalMs;
    },
  );
  const writerDone = performance.now();
  const drainDeadline = writerDone + cfg.drainMs;
  while (streams.some((s) => s.rvs.length < written.length && !s.ended) && performance.now() < drainDeadline)
    await sleep(5);
  const after = await server.stats();
  const lastEvent = Math.max(...streams.map((s) => s.at[s.at.length - 1] ?? t0));
  const timing = {
    w,
    t0,
    writerDone,
    lastEvent,
    cpu: cpuPercent(before, after, lastEvent - t0),
    loopMax: after.loopMaxMs,
  };
  return { rows: rows(streams, written, ackAt, timing), written };
}

interface Timing {
  w: Awaited<ReturnType<typeof runPool>>;
  t0: number;
  writerDone: number;
  lastEvent: number;
  cpu: number;
  loopMax: number;
}

function rows(streams: WatchStream[], written: number[], ackAt: Map<number, number>, t: Timing): Row[] {
  const expected = [...written].sort((a, b) => a - b);
  const checks = streams.map((s) => check(expected, s.rvs));
  const complete = checks.filter(
    (k, i) => !k.missing && !k.outOfOrder && !k.extra && !streams[i].malformed,
  ).length;
  const total = streams.reduce((n, s) => n + s.rvs.length, 0);
  const seconds = (t.lastEvent - t.t0) / 1000;
  const sum = (f: (k: Check) => number) => checks.reduce((n, k) => n + f(k), 0);
  const malformed = streams.reduce((n, s) => n + s.malformed, 0);
  const lags: number[] = [];
  for (const s of streams) {
    s.rvs.forEach((rv, i) => {
      const ack = ackAt.get(rv);
      if (ack !== undefined) lags.push(s.at[i] - ack);
    });
  }
  const n = streams.length;
  return [
    {
      section: SECTION,
      metric: 'writer updates while watched',
      value: rate(t.w),
      unit: '/s',
      note: poolNote(t.w),
    },
    {
      section: SECTION,
      metric: `events delivered across ${n} watchers`,
      value: seconds > 0 ? total / seconds : 0,
      unit: 'events/s',
      target: { op: '>=', value: 20_000 },
      note: `${total} events in ${seconds.toFixed(2)} s; last event ${(t.lastEvent - t.writerDone).toFixed(0)} ms after the last write ack; event after ack p50 ${percentile(lags, 50).toFixed(1)} ms, p99 ${percentile(lags, 99).toFixed(1)} ms; server CPU ${t.cpu.toFixed(0)}%, longest loop stall ${t.loopMax.toFixed(0)} ms`,
    },
    {
      section: SECTION,
      metric: 'watchers with every event, in order',
      value: complete,
      unit: `of ${n}`,
      target: { op: '>=', value: n },
      note: `${written.length} writes each; missing ${sum((k) => k.missing)}, out of order ${sum((k) => k.outOfOrder)}, unexpected ${sum((k) => k.extra)}, malformed ${malformed}, streams closed early ${streams.filter((s) => s.ended).length}`,
    },
  ];
}
