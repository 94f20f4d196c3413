// `npm run bench:memory [-- --quick] [-- --no-scale] [-- --before DIR]`: issue 23's memory
// figures in one run. On the demo cluster (`npm run cluster`, its own process): what each part of
// the console server costs (stage.ts: a process per stage, each stage's RSS less the one before),
// then the whole server as the image runs it (dist/server/main.js beside the cluster, deletion
// protection on, its history store in PGlite) and as `npm start` runs it (the embedded cluster in
// the same process), each signed in from Chromium, every page opened and some kept open: steady
// RSS (the median over a window) and peak (VmHWM) against the targets (350 and 512 MiB). Then
// the console benchmark's cluster at 5000 nodes / 150 000 pods with the same server (peak
// against 1 GiB; scale.ts). Writes bench/memory/RESULTS.md and merges it into bench/RESULTS.md;
// --quick: a short run that only prints (no scale phase); --no-scale: the demo part only;
// --before DIR: the whole-server runs also for an older checkout in DIR (its own node_modules
// and .next), run as it was (`node --import tsx server/main.ts`), for the before/after table.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { launch } from '../console/browser.js';
import { consoleTable, machine, passes, type Row } from '../report.js';
import {
  type DemoConfig,
  nodeBaseline,
  removeDir,
  runStage,
  type StageResult,
  serverConfig,
  startDemoCluster,
  tempDir,
  tokenOf,
  type WholeRun,
  wholeRun,
} from './demo.js';
import { LIVE, PAGES } from './exercise.js';
import { componentRows, ratios, scaleRows, wholeRows, writeDoc } from './results.js';
import { SCALE, type ScaleRun, scaleRun } from './scale.js';
import { STAGES } from './marks.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const log = (m: string) => console.log(`[bench:memory] ${m}`);

const FULL: DemoConfig = { rounds: 3, settleMs: 20_000, windowMs: 30_000 };
const QUICK: DemoConfig = { rounds: 1, settleMs: 5_000, windowMs: 5_000 };

export const ALONE = 'server beside the demo cluster (as the image runs it)';
const FIRST = 'the same, first start on a machine with no history template (initdb)';
const NPM_START = 'npm start (the embedded demo cluster in a child process)';

/** stage.ts bundled as dist/server/main.js is (plain node, no transpiler), its PGlite worker beside it */
async function buildStage(): Promise<string> {
  const out = join(root, 'dist', 'bench');
  mkdirSync(out, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['bench/memory/stage.ts'],
    outfile: join(out, 'memory-stage.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'server/history/pgliteWorker.mjs'), join(out, 'pgliteWorker.mjs'));
  return join(out, 'memory-stage.js');
}

async function demoPart(cfg: DemoConfig, before: string | undefined, full: boolean) {
  const stageJs = await buildStage();
  const dirs = { cluster: tempDir('cluster'), work: tempDir('work') };
  const browser = await launch();
  const cluster = await startDemoCluster(root, dirs.cluster);
  try {
    log('Node baseline');
    const baseline = await nodeBaseline(root);
    const stages: StageResult[] = [];
    for (const stage of STAGES) {
      log(`stage ${stage}`);
      stages.push(await runStage(root, stageJs, stage, cluster, browser, cfg));
    }
    const config = serverConfig(dirs.work);
    const node = process.execPath;
    const alone = (label: string, cwd: string, argv: string[], env?: Record<string, string>) => {
      log(label);
      const state = join(dirs.work, `state-${label.length}-${Date.now()}`);
      return wholeRun(
        label,
        [
          ...argv,
          '--kubeconfig',
          cluster.kubeconfig,
          '--config',
          config,
          '--state-dir',
          state,
          '--port',
          '0',
        ],
        {
          cwd,
          env,
          token: () => cluster.token,
          browser,
          cfg,
        },
      );
    };
    const embedded = (label: string, cwd: string, argv: string[]) => {
      log(label);
      const state = join(dirs.work, `embedded-${Date.now()}`);
      return wholeRun(label, [...argv, '--state-dir', state, '--port', '0'], {
        cwd,
        // `npm start`'s embedded cluster writes its kubeconfig before the console prints its URL
        token: () => tokenOf(join(state, 'kubeconfig')),
        browser,
        cfg,
      });
    };
    const runs: WholeRun[] = [];
    runs.push(await alone(ALONE, root, [node, 'dist/server/main.js']));
    if (full) {
      const emptyTmp = tempDir('tmp');
      runs.push(await alone(FIRST, root, [node, 'dist/server/main.js'], { TMPDIR: emptyTmp }));
      removeDir(emptyTmp);
    }
    runs.push(await embedded(NPM_START, root, [node, 'dist/server/main.js']));
    if (before) {
      const old = [node, '--import', 'tsx', 'server/main.ts'];
      runs.push(await alone(`before: ${ALONE}`, before, old));
      runs.push(await embedded(`before: ${NPM_START}`, before, old));
    }
    const clusterRss = cluster.m.now()?.rss ?? Number.NaN;
    return { baseline, stages, runs, clusterRss };
  } finally {
    await browser.close();
    await cluster.m.stop();
    removeDir(dirs.cluster);
    removeDir(dirs.work);
  }
}

function setup(cfg: DemoConfig, scale: boolean, before?: string): string[] {
  const { nodes, pods } = SCALE.shape;
  return [
    'Demo cluster: `npm run cluster` (scenarios/demo.yaml: 12 nodes in 3 zones, StatefulSets with RWO volumes, Deployments, its controllers and kubelets) in a process of its own, shared by every run below.',
    `Components: a process per stage (bench/memory/stage.ts, bundled like dist/server/main.js, plain node --expose-gc, NODE_ENV=production), each built up further: ${STAGES.join(', ')}; RSS (VmRSS) read after two full GCs; each figure is a stage less the one before. The UI stages are signed in from Debian's Chromium with the cluster's admin token, open every page (${PAGES.join(' ')}) ${cfg.rounds} time(s), close the tab and settle ${cfg.settleMs / 1000} s, then keep ${LIVE.join(' ')} open in tabs (a socket.io session each) for ${cfg.settleMs / 1000} s.`,
    `Whole server: \`node dist/server/main.js\` (compiled by \`npm run build:server\`, NODE_ENV=production) with --kubeconfig of the demo cluster, a palisade.yaml turning deletion protection on (as the chart does) and --state-dir (its history store: PGlite, a new directory from the template); and as \`npm start\` runs it (no kubeconfig: the embedded demo cluster in a child process of its own, whose RSS with its BMCs is reported apart). Each: started, /readyz 200, the history store open, then the same pages as above; steady = the median VmRSS over ${cfg.windowMs / 1000} s after ${cfg.settleMs / 1000} s of settling with the pages open; peak = VmHWM, start to end; /proc read every 0.25 s.`,
    ...(before
      ? [
          `Before: the same whole-server runs of the checkout in ${before} as it ran then (\`node --import tsx server/main.ts\`: TypeScript transpiled at run time, PGlite with its defaults).`,
        ]
      : []),
    ...(scale
      ? [
          `Scale: the console benchmark's cluster (bench/console: the API server alone in a child, loaded through the API) at ${nodes} nodes and ${pods} pods; the same compiled server with deletion protection on and its history store (a temporary PGlite directory, as a pod without PostgreSQL); Chromium renders the map ${SCALE.renders} times, then ${SCALE.updates} readiness flips at ${SCALE.rate}/s; the server's RSS every 0.5 s from /proc.`,
        ]
      : []),
    `Load average when the run started: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')} (1, 5, 15 min; other sessions share this machine).`,
  ];
}

async function main() {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, 'no-scale': { type: 'boolean' }, before: { type: 'string' } },
  });
  const quick = !!values.quick;
  const withScale = !quick && !values['no-scale'];
  const cfg = quick ? QUICK : FULL;
  const t0 = performance.now();
  execFileSync('bash', ['scripts/ensure-build.sh'], { cwd: root, stdio: 'inherit' });
  const setupLines = setup(cfg, withScale, values.before);
  const demo = await demoPart(cfg, values.before, !quick);
  let scale: ScaleRun | undefined;
  if (withScale) {
    log(`scale: ${SCALE.shape.nodes} nodes, ${SCALE.shape.pods} pods`);
    scale = await scaleRun(root);
  }
  const rows: Row[] = [
    ...componentRows(demo.baseline, demo.stages, cfg.rounds),
    ...wholeRows(demo.runs, [ALONE, NPM_START]),
    ...(scale ? scaleRows(scale) : []),
  ];
  const findings = [
    `The demo cluster's own process (not Palisade's) was at ${(demo.clusterRss / 1024 / 1024).toFixed(0)} MiB.`,
    ...demo.stages.flatMap((s) => s.errors.map((e) => `stage ${s.stage}: page error ${e}`)),
    ...rows
      .filter((r) => passes(r) === false)
      .map((r) => `Target missed: ${r.section} / ${r.metric}: ${r.value.toFixed(0)} ${r.unit}.`),
  ];
  console.log(`\n${consoleTable(rows)}\n\n${ratios(rows).join('\n')}\n\n${findings.join('\n')}\n`);
  const durationS = (performance.now() - t0) / 1000;
  if (!quick) {
    writeDoc(resultsPath, {
      machine: machine(),
      command: `npm run bench:memory${values['no-scale'] ? ' -- --no-scale' : ''}${values.before ? ` -- --before ${values.before}` : ''}`,
      durationS,
      setup: setupLines,
      rows,
      findings,
    });
    log(`wrote ${resultsPath}`);
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/combine.ts'], { cwd: root, stdio: 'inherit' });
  }
  const failed = rows.filter((r) => passes(r) === false).length;
  log(`${failed ? `${failed} target(s) missed` : 'all targets met'} in ${durationS.toFixed(0)} s`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`[bench:memory] failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
