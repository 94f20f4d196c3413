// `npm run bench:console [-- --quick] [-- --profile]`: issue 4's console benchmark. The
// embedded API server (child process) holds 1000 nodes and 30 000 Running pods; the
// console server (another child) watches it; Debian's Chromium opens the map. Measures
// the first full map render, event-to-DOM latency at 500 pod updates/s and the console's
// memory and CPU. The full run rewrites bench/console/RESULTS.md and merges it into
// bench/RESULTS.md (bench/combine.ts; run here, not after `&&` in package.json, so that
// `npm run bench:console -- --quick` reaches this script); --quick is a smaller smoke run that only prints;
// --profile adds CPU profiles of the console server and the page to bench/profiles/.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { profileConsole } from '../cluster/report.js';
import { summarize } from '../cluster/profile.js';
import { type Row, consoleTable, machine, passes } from '../report.js';
import { CHROMIUM } from './browser.js';
import { type Config, clusterPhase, consolePhase, renderPhase, updatePhase } from './phases.js';
import { type RunData, loadRows, ratios, renderRows, resourceRows, updateRows, writeDoc } from './results.js';
import { Rig } from './rig.js';

const FULL: Config = {
  mode: 'full',
  shape: { nodes: 1000, pods: 30_000, namespaces: 20, rackSize: 20 },
  renders: 5,
  rate: 500,
  updates: 30_000,
  maxInFlight: 64,
  drainMs: 15_000,
  settleMs: 5_000,
  deadlineMs: 15 * 60_000,
};

const QUICK: Config = {
  ...FULL,
  mode: 'quick',
  shape: { nodes: 200, pods: 6_000, namespaces: 5, rackSize: 20 },
  renders: 2,
  updates: 5_000,
  drainMs: 10_000,
  settleMs: 2_000,
  deadlineMs: 5 * 60_000,
};

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

function setup(cfg: Config): string[] {
  const { nodes, pods, namespaces, rackSize } = cfg.shape;
  return [
    `API server: \`startApiServer()\` from sim/apiserver alone in a child process (bench/server.ts), no controllers and no kubelets: loading ${pods} pods through the simulated scheduler and kubelets would take minutes.`,
    `Load, straight through the Kubernetes API (raw HTTPS, 64 in flight): ${namespaces} namespaces; ${Math.ceil(pods / 100)} workloads of 100 replicas (every tenth a StatefulSet, the rest ReplicaSets; no controller acts on them); ${nodes} Nodes (POST, then a kubelet-like status PATCH: Ready, pressure conditions, capacity, addresses, nodeInfo) labelled topology.kubernetes.io/zone (3 zones) and palisade.dev/rack (${rackSize} nodes a rack), each with its Lease in kube-node-lease; ${pods} Pods (POST with spec.nodeName set, so already bound, and a controller ownerReference to their workload's real uid; then a status PATCH: Running, Ready/ContainersReady/PodScheduled True, a running container, host and pod IPs), pod i on node i mod ${nodes}.`,
    `Heartbeats: every Lease's renewTime is PATCHed once every 10 s (${nodes / 100} a tick every 100 ms), so nodes stay Ready on the map; the nodes' own Ready heartbeat is not renewed.`,
    "Console server: `node dist/server/main.js --kubeconfig <the API server's> --port 0 --host 127.0.0.1` in its own process, NODE_ENV=production, as the image runs it (the server compiled ahead of time and the production Next.js build, both built first if stale); RSS and CPU from /proc/<pid>/status and /stat, sampled every 0.5 s.",
    `Browser: Debian's Chromium (${CHROMIUM}, headless, --disable-gpu) through Playwright's library, 1600x900 viewport, a fresh context (empty cache) for each of ${cfg.renders} loads of \`/\`. A script injected by the bench (not shipped) records, from navigation start, when all ${nodes} \`node-tile-*\` buttons are in the DOM and their aria-label pod counts add up to ${pods}: the "full map render". The map draws every tile (no virtualisation; racks use content-visibility: auto, so off-screen racks are laid out lazily but their tiles and labels are in the DOM); pod-mark canvases are painted only for tiles on or near the screen (an IntersectionObserver), the others when scrolled to.`,
    `Updates: on the last page, ${cfg.updates} merge-PATCHes of pods/status at ${cfg.rate}/s (at most ${cfg.maxInFlight} in flight), each turning one Running+Ready pod Running-not-Ready (Ready and ContainersReady False, container not ready). Pod u is on node u mod ${nodes}, so every node's "N Running" count in its tile's aria-label grows by one per update; a MutationObserver in the page stamps when each count is first reached (wall clock: performance.timeOrigin + now(), same machine as the load generator). Latency = that time - the time the PATCH's response arrived (also given from the send).`,
  ];
}

function findings(rows: Row[], cfg: Config): string[] {
  const out = rows
    .filter((r) => passes(r) === false)
    .map((r) => `Target missed: ${r.section} / ${r.metric}: ${r.value.toFixed(2)} ${r.unit}.`);
  if (cfg.mode === 'quick') out.push('Quick run: a smaller cluster; the targets are for the full size.');
  return out;
}

async function measure(rig: Rig, cfg: Config): Promise<RunData> {
  const load = await clusterPhase(rig, cfg);
  const start = await consolePhase(rig);
  const { renders, open, after, profiles } = await renderPhase(rig, start.url, cfg);
  const update = await updatePhase(rig, open, cfg);
  if (update.browserProfile) profiles.push(update.browserProfile);
  return { cfg, load, start, renders, afterRenders: after, update, samples: rig.samples, profiles };
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench exceeded its ${ms / 1000} s deadline`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

async function main() {
  const cfg = process.argv.includes('--quick') ? QUICK : FULL;
  const profileDir = process.argv.includes('--profile') ? `${repoRoot}bench/profiles` : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const t0 = performance.now();
  execFileSync('bash', ['scripts/ensure-build.sh'], { cwd: repoRoot, stdio: 'inherit' });
  const rig = new Rig(profileDir);
  let data: RunData;
  try {
    data = await withDeadline(measure(rig, cfg), cfg.deadlineMs);
  } finally {
    await rig.stop();
  }
  const rows = [...loadRows(data), ...renderRows(data), ...updateRows(data), ...resourceRows(data)];
  console.log(`\n${consoleTable(rows)}\n\n${ratios(rows).join('\n')}\n`);
  for (const p of data.profiles) console.log(`${profileConsole(summarize(p, p))}\n`);
  if (profileDir)
    console.log(`[bench:console] console server CPU profile (node --cpu-prof) in ${profileDir}`);
  const durationS = (performance.now() - t0) / 1000;
  if (cfg.mode === 'full') {
    const doc = {
      machine: machine(),
      command: 'npm run bench:console',
      durationS,
      setup: setup(cfg),
      rows,
      findings: findings(rows, cfg),
    };
    writeDoc(resultsPath, doc);
    console.log(`[bench:console] wrote ${resultsPath}`);
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/combine.ts'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
  }
  const failed = rows.filter((r) => passes(r) === false).length;
  console.log(
    `[bench:console] ${failed ? `${failed} target(s) missed` : 'all targets met'} in ${durationS.toFixed(0)} s`,
  );
}

main().then(
  // exit explicitly: keep-alive sockets must not keep the bench alive
  () => process.exit(0),
  (e) => {
    console.error(`[bench:console] failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
