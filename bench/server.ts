// The bench's child process: the embedded API server alone, so its RSS and CPU are
// measured apart from the load generator. Speaks to the parent over the fork() IPC
// channel: one 'ready' message with url/token/CA, then answers 'stats' requests.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startApiServer } from '../sim/apiserver/index.js';
import type { ChildReply, ChildRequest, ServerStats } from './protocol.js';

const gc = (globalThis as { gc?: () => void }).gc;

// RSS is sampled so the parent can see peaks (e.g. a buffered list) it would miss
// by asking only before and after a request.
let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20);
sampler.unref();

// The server is single-threaded: the longest event-loop stall is how long every
// other client (watchers, health checks) waited behind one request.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

function stats(forceGc: boolean): ServerStats {
  if (forceGc && gc) {
    // twice: the first pass can leave objects that only die after finalisation
    gc();
    gc();
  }
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  const cpu = process.cpuUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    external: m.external,
    peakRss,
    gcForced: forceGc && !!gc,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    loopMaxMs: loopDelay.max / 1e6,
    loopP99Ms: loopDelay.percentile(99) / 1e6,
  };
}

function onRequest(m: ChildRequest) {
  const reply: ChildReply = { type: 'stats', id: m.id, stats: stats(m.gc) };
  if (m.reset) {
    peakRss = reply.stats.rss;
    loopDelay.reset();
  }
  process.send?.(reply);
}

async function main() {
  if (!process.send) throw new Error('bench/server.ts must be started by bench/run.ts (fork with IPC)');
  const server = await startApiServer({ host: '127.0.0.1', port: 0 });
  process.on('message', (m) => onRequest(m as ChildRequest));
  // the parent going away for any reason must not leave a server behind
  process.on('disconnect', () => process.exit(0));
  // exit through process.exit so --cpu-prof (bench --profile) gets to write its file
  process.on('SIGTERM', () => process.exit(0));
  const ready: ChildReply = { type: 'ready', url: server.url, token: server.token, caPem: server.caPem };
  process.send(ready);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
