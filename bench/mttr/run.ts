// `npm run bench:mttr [-- --quick] [-- --reps N] [-- --real-reps N]`: time to recover a
// StatefulSet's RWO pod from a partitioned node, with Palisade's Automatic fencing against the
// embedded cluster's plain behaviour, under scaled durations and Kubernetes' real defaults, all
// in one run. Full run, about 14 min: Palisade 20 reps scaled one after another (--reps), then
// 5 at real defaults (--real-reps) side by side with as many of each of three policy variants;
// the plain cluster 2 reps scaled, and 1 at real defaults that waits out its 12.7 min window
// beside everything else. Writes bench/mttr/RESULTS.md and folds it into bench/RESULTS.md.
// --quick: scaled only, 3 Palisade reps and 1 plain, about 1.5 min, prints only.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hostCpu, sleep } from '../common.js';
import { machine } from '../report.js';
import { palisadeRep } from './palisade.js';
import { PLAIN_APPS, plainRep } from './plain.js';
import type { Sample } from './steps.js';
import { type Cpu, observations, setup } from './notes.js';
import { type PolicyVariant, type Profile, PROFILES } from './profiles.js';
import { printAll, targetRows, writeResults } from './report.js';
import { CASE_LABELS, type CaseKey, type CaseResult } from './stats.js';

const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const log = (m: string) => console.log(`[bench:mttr] ${m}`);
const cpu: Cpu[] = [];

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0)
    throw new Error(`${name} wants a whole number, not "${process.argv[i + 1]}"`);
  return v;
}

/** Run `fn`, noting how much CPU the rest of the machine took meanwhile (it is shared). */
async function measured<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const h0 = hostCpu();
  const c0 = process.cpuUsage();
  const t0 = Date.now();
  const out = await fn();
  const h1 = hostCpu();
  const c = process.cpuUsage(c0);
  const wallMs = Math.max(1, Date.now() - t0);
  const ownMs = (c.user + c.system) / 1000;
  const busyMs = h0 && h1 ? h1.busyMs - h0.busyMs : ownMs;
  cpu.push({
    label,
    wallMs,
    ownPct: (100 * ownMs) / wallMs,
    othersPct: (100 * Math.max(0, busyMs - ownMs)) / wallMs,
  });
  return out;
}

const secs = (s: Sample) => (s.mttrMs === undefined ? 'not recovered' : `${(s.mttrMs / 1000).toFixed(1)} s`);

/** Side-by-side repetitions start this far apart, so their clusters' start-ups do not pile up. */
const STAGGER_MS = 3_000;

interface RepOptions {
  key?: CaseKey;
  variant?: PolicyVariant;
  /** run the repetitions side by side (each its own cluster), the first after offsetMs */
  sideBySide?: boolean;
  offsetMs?: number;
}

async function palisade(p: Profile, reps: number, o: RepOptions = {}): Promise<CaseResult> {
  const key = o.key ?? 'palisade';
  const one = async (i: number) => {
    if (o.sideBySide) await sleep((o.offsetMs ?? 0) + i * STAGGER_MS);
    const s = await palisadeRep(p, o.variant);
    log(
      `${p.label} ${CASE_LABELS[key]} ${i + 1}/${reps}: MTTR ${secs(s)}, ${s.violations.length} violation(s)`,
    );
    for (const v of s.violations) log(`  violation: ${v}`);
    return s;
  };
  const samples: Sample[] = [];
  if (o.sideBySide) samples.push(...(await Promise.all(Array.from({ length: reps }, (_, i) => one(i)))));
  else for (let i = 0; i < reps; i++) samples.push(await one(i));
  return { profile: p, key, samples };
}

/** The plain cluster's repetitions, split into its three cases. */
async function plain(p: Profile, reps: number, partitioned?: () => void): Promise<CaseResult[]> {
  const by: Record<string, Sample[]> = {};
  for (let i = 1; i <= reps; i++) {
    log(`${p.label} plain ${i}/${reps}: watching for ${p.plainWindowMs / 1000} s after the partition`);
    const r = await plainRep(p, { partitioned: i === 1 ? partitioned : undefined });
    for (const [app, s] of Object.entries(r)) (by[app] ??= []).push(s);
    log(
      `${p.label} plain ${i}/${reps}: ${Object.entries(r)
        .map(([a, s]) => `${a} ${secs(s)}`)
        .join(', ')}`,
    );
  }
  const keys: [CaseKey, string][] = [
    ['sts', PLAIN_APPS.sts],
    ['deployment', PLAIN_APPS.deployment],
    ['manual', PLAIN_APPS.manual],
  ];
  return keys.map(([key, app]) => ({ profile: p, key, samples: by[app] ?? [] }));
}

function revision(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const dirty =
      git(['status', '--porcelain', '--', 'sim', 'server/fencing', 'lib/fencing', 'bench/mttr']) !== '';
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ' + uncommitted changes in sim/, server/fencing, lib/fencing or bench/mttr' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/**
 * Fold the results into bench/RESULTS.md, as the other benches' npm scripts do with
 * `&& tsx bench/combine.ts`; done here so that `npm run bench:mttr -- --quick` passes its
 * flags to this script (npm appends them to the script's last command).
 */
function combine() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/combine.ts'], { cwd: root, stdio: 'inherit' });
}

async function main() {
  const quick = process.argv.includes('--quick');
  const reps = {
    scaled: flag('--reps', quick ? 3 : 20),
    plainScaled: quick ? 1 : 2,
    real: flag('--real-reps', quick ? 0 : 5),
  };
  const plainReal = reps.real > 0 ? 1 : 0;
  const t0 = Date.now();
  log(
    `${quick ? 'quick' : 'full'} run: Palisade ${reps.scaled} scaled + ${reps.real} real-default reps; plain ${reps.plainScaled} scaled + ${plainReal} real-default`,
  );
  // the plain cluster at real defaults only waits for its timers: it runs beside the rest,
  // which start once it is partitioned (its own start-up would otherwise skew their timings)
  let partitioned: () => void = () => undefined;
  const ready = new Promise<void>((r) => (partitioned = r));
  const background = plainReal
    ? measured('the plain cluster at real defaults', () => plain(PROFILES.real, 1, partitioned))
    : undefined;
  if (background) await Promise.race([ready, background]);
  const cases: CaseResult[] = [];
  cases.push(await measured('Palisade, scaled', () => palisade(PROFILES.scaled, reps.scaled)));
  cases.push(
    ...(await measured('the plain cluster, scaled', () => plain(PROFILES.scaled, reps.plainScaled))),
  );
  if (reps.real) {
    // at real defaults a repetition is a minute of waiting on timers: they run side by side,
    // with the variant (Palisade force-deleting the fenced node's pods: where the pod GC wait goes)
    const n = reps.real;
    const side = (i: number, key: CaseKey, variant?: PolicyVariant) =>
      palisade(PROFILES.real, n, { key, variant, sideBySide: true, offsetMs: i * n * STAGGER_MS });
    const all = () =>
      Promise.all([
        side(0, 'palisade'),
        side(1, 'palisadeNow', { unhealthyFor: '0s' }),
        side(2, 'palisadeDelete', { release: 'ResourceDeletion' }),
        side(3, 'palisadeByHand', { maxUnhealthy: 0, byHand: true }),
      ]);
    cases.push(...(await measured('Palisade and its variants side by side, real defaults', all)));
  }
  if (background) {
    log('waiting for the plain cluster at real defaults to finish its window');
    cases.push(...(await background));
  }
  const durationS = (Date.now() - t0) / 1000;
  const targets = targetRows(cases);
  const obs = observations(cases, cpu);
  printAll(cases, targets);
  for (const o of obs) console.log(`- ${o}`);
  for (const c of cpu)
    log(
      `CPU during ${c.label}: bench ${c.ownPct.toFixed(0)} %, other processes ${c.othersPct.toFixed(0)} % of one core over ${(c.wallMs / 1000).toFixed(0)} s`,
    );
  if (!quick) {
    const busiest = Math.max(0, ...cpu.map((c) => c.othersPct));
    writeResults(resultsPath, {
      machine: machine(),
      revision: revision(),
      command: `npm run bench:mttr${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      durationS,
      cases,
      targets,
      setup: setup({ ...reps, plainReal }),
      observations: obs,
      warning:
        busiest > 25
          ? `other processes took up to ${busiest.toFixed(0)} % of one core during a phase.`
          : undefined,
    });
    log(`wrote ${resultsPath}`);
    combine();
  }
  log(`done in ${durationS.toFixed(0)} s`);
}

main().then(
  // exit explicitly: keep-alive sockets must not keep the bench alive
  () => process.exit(0),
  (e) => {
    console.error(`[bench:mttr] failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
