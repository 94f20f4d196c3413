// bench:memory on the demo cluster: the breakdown by component (a process per stage, stage.ts)
// and the whole server as it is run (dist/server/main.js: alone beside the demo cluster, as the
// image runs it; and as `npm start` runs it, the embedded cluster in a child process of its own).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import YAML from 'yaml';
import { sleep } from '../common.js';
import { everyPage, livePages } from './exercise.js';
import { Measured } from './proc.js';
import type { Mark, Stage } from './marks.js';

export interface DemoConfig {
  /** rounds over every page */
  rounds: number;
  /** after the pages, before the steady window */
  settleMs: number;
  /** the steady figure: the median RSS over this window */
  windowMs: number;
}

const NODE = process.execPath;
const PROD = { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };

/** The demo cluster in a process of its own (`npm run cluster`), and its admin token. */
export async function startDemoCluster(root: string, dir: string) {
  const kubeconfig = join(dir, 'kubeconfig');
  const m = Measured.start(
    'the demo cluster',
    [NODE, '--import', 'tsx', 'sim/cli.ts', '--kubeconfig', kubeconfig, '--port', '0'],
    { cwd: root },
  );
  await m.waitFor(/^kubeconfig: /, 180_000, 'its kubeconfig');
  return { m, kubeconfig, token: tokenOf(kubeconfig) };
}

/** the admin token of a kubeconfig the embedded cluster wrote */
export function tokenOf(kubeconfig: string): string {
  const doc = YAML.parse(readFileSync(kubeconfig, 'utf8')) as { users: { user: { token?: string } }[] };
  const token = doc.users[0]?.user.token;
  if (!token) throw new Error(`${kubeconfig} has no token`);
  return token;
}

/** An idle node process: what Node itself costs. */
export async function nodeBaseline(root: string): Promise<number> {
  const m = Measured.start('node', [NODE, '-e', 'setInterval(() => {}, 1000)'], { cwd: root });
  await sleep(3_000);
  const rss = m.now()?.rss ?? Number.NaN;
  await m.stop();
  return rss;
}

export interface StageResult {
  stage: Stage;
  marks: Mark[];
  peak: number;
  errors: string[];
}

async function mark(m: Measured, name: string): Promise<Mark> {
  const from = m.lines.length;
  m.send(`mark ${name}`);
  const line = await m.waitFor(/^MARK (.*)$/, 120_000, `its mark ${name}`, from);
  return JSON.parse(line[1]) as Mark;
}

/** One stage of the breakdown; the UI stages are driven by Chromium. */
export async function runStage(
  root: string,
  stageJs: string,
  stage: Stage,
  cluster: { kubeconfig: string; token: string },
  browser: Browser,
  cfg: DemoConfig,
): Promise<StageResult> {
  const m = Measured.start(`stage ${stage}`, [NODE, '--expose-gc', stageJs, stage, cluster.kubeconfig], {
    cwd: root,
    env: PROD,
  });
  const errors: string[] = [];
  try {
    const ready = await m.waitFor(/^READY (.*)$/, 300_000, 'READY');
    const { url } = JSON.parse(ready[1]) as { url?: string };
    const marks = [await mark(m, stage)];
    if (url && (stage === 'ui' || stage === 'history')) {
      // every page, closed and settled; then the live pages kept open, settled
      const pages = await everyPage(browser, url, cluster.token, cfg.rounds);
      await sleep(cfg.settleMs);
      marks.push(await mark(m, `${stage}-pages`));
      const live = await livePages(browser, url, cluster.token);
      await sleep(cfg.settleMs);
      marks.push(await mark(m, `${stage}-live`));
      await live.live.close();
      errors.push(...pages.errors, ...live.errors);
    }
    return { stage, marks, peak: m.peak(), errors };
  } finally {
    m.send('stop');
    await m.stop();
  }
}

export interface WholeRun {
  label: string;
  steady: number;
  peak: number;
  /** process start to the console's URL, to /readyz 200, to the history store open (s) */
  urlS: number;
  readyS: number;
  historyS: number;
  loads: number;
  errors: string[];
  /** its child processes together (npm start: the embedded cluster and its BMCs) */
  descendants: { steady: number; peak: number };
}

async function until(what: string, ms: number, check: () => Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${ms / 1000} s`);
}

/**
 * The server as a whole: started, synced, the history store open, every page `rounds` times and
 * LIVE kept open; steady = the median RSS over the window after settling, peak = VmHWM.
 */
export async function wholeRun(
  label: string,
  argv: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    /** the token to sign in with, once the server printed its URL (the embedded cluster's is written then) */
    token: () => string;
    browser: Browser;
    cfg: DemoConfig;
  },
): Promise<WholeRun> {
  const t0 = Date.now();
  const m = Measured.start(label, argv, { cwd: opts.cwd, env: { ...PROD, ...opts.env } });
  try {
    const url = (await m.waitFor(/Palisade console: (\S+)/, 300_000, 'its URL'))[1];
    const urlS = (Date.now() - t0) / 1000;
    await until(`${label}: /readyz`, 300_000, async () => (await fetch(`${url}/readyz`)).ok);
    const readyS = (Date.now() - t0) / 1000;
    await m.waitFor(/history store open/, 300_000, 'the history store open');
    const historyS = (Date.now() - t0) / 1000;
    const pages = await everyPage(opts.browser, url, opts.token(), opts.cfg.rounds);
    const live = await livePages(opts.browser, url, opts.token());
    await sleep(opts.cfg.settleMs);
    const from = Date.now();
    await sleep(opts.cfg.windowMs);
    const steady = m.steady(from);
    const descendants = m.descendantsRss(from);
    await live.live.close();
    const errors = [...pages.errors, ...live.errors];
    return {
      label,
      steady,
      peak: m.peak(),
      urlS,
      readyS,
      historyS,
      loads: pages.loads + live.loads,
      errors,
      descendants,
    };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${label}'s output:\n${m.tail()}`);
  } finally {
    await m.stop();
  }
}

/** palisade.yaml for the server beside the demo cluster: deletion protection on, as the chart has it. */
export function serverConfig(dir: string): string {
  const path = join(dir, 'palisade.yaml');
  writeFileSync(path, 'protection: {}\n');
  return path;
}

export const tempDir = (what: string) => mkdtempSync(join(tmpdir(), `palisade-bench-memory-${what}-`));
export const removeDir = (d: string) => rmSync(d, { recursive: true, force: true });
