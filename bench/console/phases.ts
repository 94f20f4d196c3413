// The bench's phases, in order: load the cluster, start the console, open the map a
// few times, then flip pods' readiness at a fixed rate while the last page watches.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sleep } from '../common.js';
import type { ProcReading } from '../cluster/procfs.js';
import { type OpenMap, type Render, launch, openMap, profilePage } from './browser.js';
import { waitSynced } from './console-child.js';
import type { Shape } from './fixtures.js';
import { type LoadResult, loadCluster } from './load.js';
import { ARM, type ProbeRecords, READ_RECORDS } from './probe.js';
import type { Rig, Sample } from './rig.js';
import { Heartbeats, type UpdateRun, flipReadiness, wallNow } from './traffic.js';

export interface Config {
  mode: 'full' | 'quick' | 'scale';
  shape: Shape;
  /** fresh-page first renders */
  renders: number;
  rate: number;
  /** readiness flips; at most one per pod (see flipReadiness) */
  updates: number;
  maxInFlight: number;
  /** after the last acknowledgement, how long updates may take to reach the DOM */
  drainMs: number;
  /** quiet time between the last render and the updates */
  settleMs: number;
  deadlineMs: number;
  /** how long loading each kind may take (default 300 s) */
  loadBudgetMs?: number;
  /** how long a first render may take (default 60 s) */
  renderTimeoutMs?: number;
}

const log = (m: string) => console.log(`[bench:console] ${m}`);

export async function clusterPhase(rig: Rig, cfg: Config): Promise<LoadResult> {
  log('starting the API server child');
  await rig.startApi();
  const { nodes, pods } = cfg.shape;
  log(`loading ${nodes} nodes, their Leases and ${pods} pods through the API`);
  const load = await loadCluster(rig.client(64), cfg.shape, cfg.loadBudgetMs);
  log(`loaded in ${(load.ms / 1000).toFixed(1)} s`);
  rig.heartbeats = new Heartbeats(rig.client(8), nodes);
  return load;
}

export interface ConsoleStart {
  url: string;
  /** console process start to every informer synced */
  syncMs: number;
  /** the console's memory once synced, before any browser */
  idle: ProcReading | undefined;
}

export async function consolePhase(
  rig: Rig,
  opts?: {
    args?: string[];
    env?: Record<string, string>;
    wrap?: (argv: string[]) => string[];
    syncTimeoutMs?: number;
  },
): Promise<ConsoleStart> {
  const t0 = performance.now();
  const url = await rig.startConsole({ ...opts, startTimeoutMs: opts?.syncTimeoutMs }).url();
  log(`console at ${url}; waiting for its informers`);
  await waitSynced(url, rig.token, opts?.syncTimeoutMs ?? 120_000);
  const syncMs = performance.now() - t0;
  log(`console synced ${(syncMs / 1000).toFixed(1)} s after start`);
  await sleep(2_000);
  return { url, syncMs, idle: rig.read().console };
}

export async function renderPhase(rig: Rig, url: string, cfg: Config) {
  rig.browser = await launch();
  const renders: Render[] = [];
  const profiles: string[] = [];
  let open: OpenMap | undefined;
  for (let i = 0; i < cfg.renders; i++) {
    await open?.ctx.close();
    // --profile: the first load only, so that the profiler's overhead stays out of the median
    const profile = rig.profileDir && i === 0 ? profilePath(rig.profileDir, 'render') : undefined;
    open = await openMap(
      rig.browser,
      url,
      rig.token,
      cfg.shape.nodes,
      cfg.shape.pods,
      profile,
      cfg.renderTimeoutMs,
    );
    if (profile) profiles.push(profile);
    renders.push(open.render);
    log(`render ${i + 1}/${cfg.renders}: full map after ${(open.render.fullMs / 1000).toFixed(2)} s`);
  }
  return { renders, open: open!, after: rig.read().console, profiles };
}

export interface UpdateResult {
  run: UpdateRun;
  rec: ProbeRecords;
  armedTiles: number;
  /** /proc readings at the first send and the last acknowledgement */
  before: Sample;
  after: Sample;
  drainedMs: number;
  browserProfile?: string;
}

const SEEN = 'Object.values(window.__bench.dom).reduce((s, a) => s + a.length, 0)';

export async function updatePhase(rig: Rig, open: OpenMap, cfg: Config): Promise<UpdateResult> {
  await sleep(cfg.settleMs);
  const armedTiles = (await open.page.evaluate(ARM)) as number;
  const profiler = rig.profileDir ? await profilePage(open.ctx, open.page) : undefined;
  log(`${cfg.updates} readiness flips at ${cfg.rate}/s; ${armedTiles} tiles watched`);
  const before = rig.read();
  const run = await flipReadiness(rig.client(cfg.maxInFlight), cfg.shape, { ...cfg, count: cfg.updates });
  const after = rig.read();
  const acked = run.updates.filter((u) => u.ok).length;
  const t0 = wallNow();
  while (wallNow() - t0 < cfg.drainMs && ((await open.page.evaluate(SEEN)) as number) < acked)
    await sleep(250);
  const drainedMs = wallNow() - t0;
  const browserProfile = profiler && (await profiler(profilePath(rig.profileDir!, 'updates')));
  const rec = (await open.page.evaluate(READ_RECORDS)) as ProbeRecords;
  return { run, rec, armedTiles, before, after, drainedMs, browserProfile };
}

const profilePath = (dir: string, what: string) => join(dir, `console-page-${what}-${Date.now()}.cpuprofile`);
