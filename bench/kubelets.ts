// Phase 3b: one kubelet-style watch per node. Every kubelet watches the pods bound to
// it (?fieldSelector=spec.nodeName=<node>), so a cluster with N nodes has N such
// watches open; each pod write then has to be matched against all of them.
import { performance } from 'node:perf_hooks';
import type { ServerChild } from './child.js';
import { MERGE, cpuPercent, sleep } from './common.js';
import { annotationPatch, nodeName, podName } from './fixtures.js';
import { type Client, runPool } from './http.js';
import type { Row } from './report.js';
import { WatchStream } from './watch.js';

export interface KubeletConfig {
  /** watches to open: one per node */
  watchers: number;
  updates: number;
  concurrency: number;
  budgetMs: number;
  /** pods loaded by the scale phase: pod-i lives in nsName(i % namespaces) on node-(i % nodes) */
  pods: number;
  nodes: number;
  nsName: (i: number) => string;
  namespaces: number;
}

const SECTION = 'scale';
const OPEN_IN_PARALLEL = 100;

export async function kubeletWatches(server: ServerChild, c: Client, cfg: KubeletConfig): Promise<Row[]> {
  const streams: WatchStream[] = [];
  try {
    const list = await c.expect(200, 'GET', `/api/v1/namespaces/${cfg.nsName(0)}/pods?limit=1`);
    const rv = JSON.parse(list.body.toString('utf8')).metadata.resourceVersion as string;
    const t0 = performance.now();
    for (let k = 0; k < cfg.watchers; k += OPEN_IN_PARALLEL) {
      const batch = Array.from({ length: Math.min(OPEN_IN_PARALLEL, cfg.watchers - k) }, (_, j) => {
        const s = new WatchStream();
        streams.push(s);
        const sel = encodeURIComponent(`spec.nodeName=${nodeName(k + j)}`);
        return s.open(
          server.endpoint,
          `/api/v1/pods?watch=true&fieldSelector=${sel}&resourceVersion=${rv}&timeoutSeconds=600`,
        );
      });
      await Promise.all(batch);
    }
    const openMs = performance.now() - t0;
    return [await writes(server, c, cfg, streams, openMs)];
  } finally {
    for (const s of streams) s.close();
  }
}

async function writes(
  server: ServerChild,
  c: Client,
  cfg: KubeletConfig,
  streams: WatchStream[],
  openMs: number,
): Promise<Row> {
  const before = await server.stats({ reset: true });
  const t0 = performance.now();
  // spread over the whole cluster: pod i is on node i % nodes, so each write has exactly one watcher
  const step = Math.max(1, Math.floor(cfg.pods / cfg.updates));
  const r = await runPool(
    { count: cfg.updates, concurrency: cfg.concurrency, budgetMs: cfg.budgetMs },
    async (i) => {
      const p = (i * step) % cfg.pods;
      const path = `/api/v1/namespaces/${cfg.nsName(p % cfg.namespaces)}/pods/${podName(p)}`;
      const body = annotationPatch(1_000_000 + i);
      return (await c.expect(200, 'PATCH', path, { body, contentType: MERGE, discard: true })).totalMs;
    },
  );
  const ms = performance.now() - t0;
  const received = () => streams.reduce((n, s) => n + s.rvs.length, 0);
  for (const end = performance.now() + 10_000; received() < r.ok && performance.now() < end; )
    await sleep(10);
  const after = await server.stats();
  const cpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const note = [
    `${r.ok} writes in ${(ms / 1000).toFixed(1)} s${r.timedOut ? ' (time budget ran out)' : ''}, ${cfg.concurrency} in flight`,
    `server CPU ${(cpuMs / Math.max(1, r.ok)).toFixed(1)} ms per write (${cpuPercent(before, after, ms).toFixed(0)}%)`,
    `${received()} of ${r.ok} events reached their kubelet watch (${streams.filter((s) => s.ended).length} watches closed early)`,
    `longest loop stall ${after.loopMaxMs.toFixed(0)} ms; opening the watches took ${(openMs / 1000).toFixed(1)} s`,
  ].join('; ');
  return {
    section: SECTION,
    metric: `pod updates with ${streams.length} kubelet watches (fieldSelector spec.nodeName)`,
    value: ms > 0 ? r.ok / (ms / 1000) : 0,
    unit: '/s',
    note,
  };
}
