// `npm run bench [-- --quick]`: starts the embedded API server in a child process and
// measures write throughput, watch fan-out and behaviour at 5000 nodes / 150 000 pods.
// The full run rewrites bench/RESULTS.md; --quick is a smoke run that does not;
// --profile also writes a V8 CPU profile of the server to bench/profiles/.
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ServerChild } from './child.js';
import { hostCpu } from './common.js';
import { type Row, consoleTable, fmt, machine, passes, writeResults } from './report.js';
import { type ScaleConfig, scalePhase } from './scale.js';
import { type WatchConfig, watchPhase } from './watch.js';
import { type WriteConfig, writePhase } from './writes.js';

interface Config {
  name: string;
  writes: WriteConfig;
  watch: WatchConfig;
  scale: ScaleConfig;
  /** hard stop for the whole run: a hung phase must not hang CI */
  deadlineMs: number;
}

const FULL: Config = {
  name: 'full',
  writes: { pods: 1000, updates: 10_000, warmup: 2000, trials: 3, concurrency: 64, budgetMs: 20_000 },
  watch: {
    watchers: 10,
    pods: 100,
    updates: 15_000,
    writerConcurrency: 32,
    budgetMs: 30_000,
    drainMs: 30_000,
  },
  scale: {
    nodes: 5000,
    pods: 150_000,
    namespaces: 50,
    concurrency: 64,
    loadBudgetMs: 240_000,
    smallListRuns: 5,
    kubelets: { watchers: 5000, updates: 2000, concurrency: 8, budgetMs: 15_000 },
  },
  deadlineMs: 9.5 * 60_000,
};

const QUICK: Config = {
  name: 'quick',
  writes: { pods: 200, updates: 1500, warmup: 1000, trials: 3, concurrency: 64, budgetMs: 10_000 },
  watch: { watchers: 10, pods: 100, updates: 3000, writerConcurrency: 32, budgetMs: 10_000, drainMs: 10_000 },
  scale: {
    nodes: 500,
    pods: 10_000,
    namespaces: 10,
    concurrency: 64,
    loadBudgetMs: 60_000,
    smallListRuns: 3,
    kubelets: { watchers: 500, updates: 1000, concurrency: 8, budgetMs: 10_000 },
  },
  deadlineMs: 3 * 60_000,
};

const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

function setup(cfg: Config): string[] {
  const { writes: w, watch: wa, scale: s } = cfg;
  return [
    `Server: \`startApiServer()\` from sim/apiserver in a child process, \`node --expose-gc --import tsx\`, default heap limits; load generator in the parent, raw \`node:https\` with keep-alive agents, all on 127.0.0.1, sharing the same cores.`,
    `Writes: ${w.pods} pods in one namespace; ${w.warmup} merge-PATCHes to warm up (not counted); then per variant ${w.trials} trials of ${w.updates} updates with ${w.concurrency} in flight, round-robin over the pods, median trial reported. Variants: merge-PATCH of an annotation; PUT of the last seen object with its resourceVersion; strategic PATCH.`,
    `Watch: ${wa.watchers} watch streams (each its own TLS connection) on one namespace from a listed resourceVersion; one writer sends ${wa.updates} merge-PATCHes with ${wa.writerConcurrency} in flight; events/s = all events received / (last event - first write). Each watcher's resourceVersions must equal the writer's acknowledged ones, in order. Then ${wa.watchers} new watchers replay the same events from the same resourceVersion (fan-out without the write path).`,
    `Scale: ${s.nodes} nodes and ${s.pods} pods in ${s.namespaces} namespaces, each a POST then a merge-PATCH of /status (kubelet-like conditions, container status), ${s.concurrency} in flight. Pods have 3 labels, one container with ports and resources, nodeName, and defaults added by the server. RSS read in the child after two \`global.gc()\` calls.`,
    `Kubelet watches: one \`?watch=true&fieldSelector=spec.nodeName=<node>\` stream per node (up to ${s.kubelets.watchers}, each its own TLS connection), then merge-PATCHes of pods spread over all nodes, ${s.kubelets.concurrency} in flight; run last because the open watches would skew the other figures.`,
    'Lists: full `GET /api/v1/pods` timed to first and last byte, then `JSON.parse` on the client; /healthz is polled on a separate connection during each full list. "After one create" lists once more after a single pod create.',
  ];
}

function observations(rows: Row[]): string[] {
  const out = rows
    .filter((r) => passes(r) === false)
    .map(
      (r) =>
        `Target missed: ${r.section} / ${r.metric}: ${fmt(r.value)} ${r.unit} (target ${r.target!.op} ${fmt(r.target!.value)} ${r.unit}).`,
    );
  for (const metric of ['server during single full pod lists', 'two concurrent full pod lists: last byte']) {
    const r = rows.find((x) => x.metric === metric);
    if (r?.note) out.push(`${metric}: ${fmt(r.value)} ${r.unit}; ${r.note}.`);
  }
  return out;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench exceeded its ${ms / 1000} s deadline`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/**
 * The machine may be shared: note how much CPU other processes took during a phase,
 * so a slow figure can be told apart from a busy neighbour.
 */
async function contention(name: string, server: ServerChild, run: () => Promise<Row[]>): Promise<Row[]> {
  const host0 = hostCpu();
  const server0 = await server.stats();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const rows = await run();
  const wall = performance.now() - t0;
  const host1 = hostCpu();
  const server1 = await server.stats();
  const self = process.cpuUsage(self0);
  if (!host0 || !host1) return rows;
  const serverMs = server1.cpuUserMs + server1.cpuSystemMs - server0.cpuUserMs - server0.cpuSystemMs;
  const selfMs = (self.user + self.system) / 1000;
  const pct = (ms: number) => (100 * ms) / wall;
  const others = Math.max(0, host1.busyMs - host0.busyMs - serverMs - selfMs);
  const note = `of one core, over ${(wall / 1000).toFixed(0)} s; server ${pct(serverMs).toFixed(0)}%, load generator ${pct(selfMs).toFixed(0)}%, hypervisor steal ${pct(host1.stealMs - host0.stealMs).toFixed(0)}%`;
  return [
    ...rows,
    { section: name, metric: 'CPU taken by other processes', value: pct(others), unit: '%', note },
  ];
}

async function phases(cfg: Config, server: ServerChild, rows: Row[]) {
  const step = async (name: string, run: () => Promise<Row[]>) => {
    const t0 = performance.now();
    console.log(`[bench] ${name}...`);
    rows.push(...(await contention(name, server, run)));
    console.log(`[bench] ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await step('writes', () => writePhase(server, cfg.writes));
  await step('watch', () => watchPhase(server, cfg.watch));
  await step('scale', async () => (await scalePhase(server, cfg.scale)).rows);
}

async function main() {
  const quick = process.argv.includes('--quick');
  const cfg = quick ? QUICK : FULL;
  const t0 = performance.now();
  console.log(`[bench] ${cfg.name} run; starting the API server child`);
  const profileDir = process.argv.includes('--profile')
    ? fileURLToPath(new URL('./profiles/', import.meta.url))
    : undefined;
  const server = await ServerChild.start(profileDir);
  const rows: Row[] = [];
  try {
    await withDeadline(phases(cfg, server, rows), cfg.deadlineMs);
  } finally {
    await server.stop();
  }
  const durationS = (performance.now() - t0) / 1000;
  console.log(`\n${consoleTable(rows)}\n`);
  if (!quick) {
    const command = 'npm run bench';
    writeResults(resultsPath, {
      machine: machine(),
      command,
      durationS,
      rows,
      setup: setup(cfg),
      findings: observations(rows),
    });
    console.log(`[bench] wrote ${resultsPath}`);
  }
  if (profileDir) console.log(`[bench] server CPU profile in ${profileDir}`);
  const failed = rows.filter((r) => passes(r) === false).length;
  console.log(
    `[bench] ${failed ? `${failed} target(s) missed` : 'all targets met'} in ${durationS.toFixed(0)} s`,
  );
}

main().then(
  // exit explicitly: keep-alive sockets or a stuck watch must not keep the bench alive
  () => process.exit(0),
  (e) => {
    console.error(`[bench] failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
