// `npm run bench:protection [-- --quick] [-- --backend embedded|real|both]`: the deletion-storm
// benchmark of deletion protection, on both back ends in one run by default: the embedded
// cluster, then the simulated nodes on a real etcd + kube-apiserver + kube-controller-manager
// (testenv/). Per back end three children: the cluster, the webhook and the aggregator (each
// alone in its process, so the webhook's CPU is its own); the load comes from this
// process. Phases: unprotected pods deleted one at a time with and without the webhook in
// the path, a storm of DELETEs on protected pods (batching on), the same storm on a fresh
// namespace with batching off, and (full run) a what-if storm with the webhook's API client
// on a keep-alive agent. The full run writes bench/protection/RESULTS.md;
// --quick (200 pods, minAvailable 180, 400 DELETEs, about 30 s) only prints;
// --dump <file> also writes every raw figure (each request, each review) as JSON;
// --profile takes a CPU profile of the webhook in each measured window.
import { rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { type ProfileSummary, summarize } from '../cluster/profile.js';
import { readKubeconfig } from '../cluster/probes.js';
import { profileConsole, profileMarkdown } from '../cluster/report.js';
import { consoleTable, machine, passes } from '../report.js';
import { Child } from './child.js';
import { CpuMeter } from './cpu.js';
import type { Rig } from './rig.js';
import { type StormVariant, stormPhase } from './stormPhase.js';
import { unprotectedPhase } from './unprotected.js';
import { ratioRows, revision, stormRows, unprotectedRows, writeResults } from './report.js';
import { FULL, QUICK, SEED, VARIANTS, type Config } from './config.js';
import { observations, setup, sharedMachine } from './notes.js';

const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const log = (m: string) => console.log(`[bench:protection] ${m}`);

type Backend = 'embedded' | 'real';

async function start(
  cfg: Config,
  profile: boolean,
  backend: Backend,
): Promise<{ rig: Rig; children: Child[]; dir: string }> {
  const children: Child[] = [];
  const { child: cluster, info } = await Child.start('cluster', 'cluster-child.ts', [
    String(cfg.nodes),
    String(cfg.podsPerNode),
    backend,
  ]);
  children.push(cluster);
  const kubeconfig = info.kubeconfigPath!;
  log(`${backend} cluster up (${cfg.nodes} nodes), kubeconfig ${kubeconfig}`);
  const { child: aggregator } = await Child.start('aggregator', 'protection-child.ts', [
    'aggregator',
    kubeconfig,
  ]);
  children.push(aggregator);
  const { child: webhook } = await Child.start('webhook', 'protection-child.ts', ['webhook', kubeconfig]);
  children.push(webhook);
  log('aggregator and webhook up, webhook registered');
  const cpu = new CpuMeter({ cluster: cluster.pid, webhook: webhook.pid, aggregator: aggregator.pid });
  const rig = { endpoint: readKubeconfig(kubeconfig), cluster, webhook, aggregator, cpu, log, profile };
  return { rig, children, dir: dirname(kubeconfig) };
}

/** The webhook's CPU profiles (--profile), one per measured window. */
function summaries(windows: { profile?: string }[]): ProfileSummary[] {
  return windows.flatMap((w) => {
    if (!w.profile) return [];
    console.error(`webhook profile: ${w.profile} (open in Chrome DevTools)`);
    return [summarize(w.profile, basename(w.profile).replace(/^palisade-webhook-|-\d+\.cpuprofile$/g, ''))];
  });
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench exceeded its ${ms / 1000} s deadline`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

async function phases(cfg: Config, rig: Rig) {
  // first: it also warms the API server's DELETE path and the webhook before the storms
  log(`unprotected DELETEs: ${cfg.unprotected} with the webhook, ${cfg.unprotected} without`);
  const u = await unprotectedPhase(rig, cfg.unprotected, cfg.storm.readyTimeoutMs);
  const storm = async (v: StormVariant) => {
    log(`${v.label}: ${cfg.storm.deletes} DELETEs on ${cfg.storm.pods} pods`);
    const r = await stormPhase(rig, cfg.storm, v, SEED);
    log(`${v.label}: done in ${(r.run.elapsedMs / 1000).toFixed(1)} s`);
    return r;
  };
  const on = await storm(VARIANTS.on);
  const off = await storm(VARIANTS.off);
  const whatIf = cfg.whatIfStorm ? await storm(VARIANTS.whatIf) : undefined;
  return { on, off, whatIf, u };
}

function backends(): Backend[] {
  const i = process.argv.indexOf('--backend');
  const v = i > 0 ? process.argv[i + 1] : 'both';
  if (v === 'both') return ['embedded', 'real'];
  if (v === 'embedded' || v === 'real') return [v];
  throw new Error(`--backend must be embedded, real or both, not "${v}"`);
}

/** One back end's whole run: children up, phases, children down; rows labelled by back end. */
async function onBackend(cfg: Config, backend: Backend, profile: boolean, quick: boolean) {
  log(`--- ${backend} control plane`);
  const { rig, children, dir } = await start(cfg, profile, backend);
  let result: Awaited<ReturnType<typeof phases>>;
  try {
    result = await withDeadline(phases(cfg, rig), cfg.deadlineMs);
  } finally {
    await Promise.all(children.reverse().map((c) => c.stop()));
    // the kubeconfig and infra.json hold the (now dead) cluster's tokens
    rmSync(dir, { recursive: true, force: true });
  }
  const { on, off, whatIf, u } = result;
  // the baseline and the what-if are comparisons: the issue's targets are the storm's
  const none = { perWrite: false, latency: false };
  const prefix = backend === 'real' ? 'real control plane: ' : '';
  const rows = [
    ...stormRows(on, cfg.storm, { perWrite: !quick, latency: true }),
    ...stormRows(off, cfg.storm, none),
    ...ratioRows(on, off),
    ...unprotectedRows(u),
    ...(whatIf ? stormRows(whatIf, cfg.storm, none) : []),
  ].map((r) => ({ ...r, section: `${prefix}${r.section}` }));
  const obs = observations(rows, result).map((o) => `${prefix}${o}`);
  const profiles = summaries([u, on, off, ...(whatIf ? [whatIf] : [])]);
  return { result, rows, obs, profiles, warning: sharedMachine(result) };
}

async function main() {
  const quick = process.argv.includes('--quick');
  const cfg = quick ? QUICK : FULL;
  const t0 = performance.now();
  log(`${cfg.name} run`);
  const profile = process.argv.includes('--profile');
  const runs = [];
  for (const backend of backends())
    runs.push({ backend, ...(await onBackend(cfg, backend, profile, quick)) });
  const rows = runs.flatMap((r) => r.rows);
  const obs = runs.flatMap((r) => r.obs);
  const profiles = runs.flatMap((r) => r.profiles);
  const durationS = (performance.now() - t0) / 1000;
  console.log(`\n${consoleTable(rows)}\n`);
  for (const o of obs) console.log(`- ${o}`);
  for (const p of profiles) console.log(`\n${profileConsole(p)}`);
  if (!quick) {
    writeResults(resultsPath, {
      machine: machine(),
      revision: revision(),
      command: `npm run bench:protection${runs.length === 1 ? ` -- --backend ${runs[0].backend}` : ''}`,
      durationS,
      rows,
      setup: [...setup(cfg), ...(runs.some((r) => r.backend === 'real') ? [REAL_SETUP] : [])],
      observations: obs,
      warning: runs.map((r) => r.warning).find(Boolean),
      profiles: profiles.map(profileMarkdown),
    });
    log(`wrote ${resultsPath}`);
  }
  const dump = process.argv.indexOf('--dump');
  if (dump > 0) {
    const path = process.argv[dump + 1] ?? 'protection-bench.json';
    writeFileSync(path, JSON.stringify(runs.map((r) => ({ backend: r.backend, ...r.result }))));
    log(`raw results in ${path}`);
  }
  const failed = rows.filter((r) => passes(r) === false).length;
  log(`${failed ? `${failed} target(s) missed` : 'all targets met'} in ${durationS.toFixed(0)} s`);
}

const REAL_SETUP =
  'Real control plane (rows prefixed "real control plane:"): the same phases with the cluster child running the simulated nodes against etcd 3.6.16 + kube-apiserver v1.34.10 + kube-controller-manager built by testenv/ (separate processes: their CPU is under "other processes", so the shared-machine warning is expected there); kube-apiserver calls the webhook itself, so the "API server -> webhook" timings are the embedded run\'s only.';

main().then(
  // exit explicitly: keep-alive sockets must not keep the bench alive
  () => process.exit(0),
  (e) => {
    console.error(`[bench:protection] failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
