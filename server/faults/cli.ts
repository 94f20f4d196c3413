// npm run faults -- [--seeds N] [--from S] [--seed S]... [--window 30s]: the randomized fault run
// on demand (server/faults/run.ts), one rig for every seed in turn. Each seed's result goes to
// .palisade/faults/run-<time>.jsonl as it finishes (so a long run can be followed, and a crash
// loses nothing); the end prints the figures — seeds, violations, liveness times (from the last
// heal to every pod Ready again) — and, for a run of 20 seeds or more, writes them to
// bench/faults/RESULTS.md (folded into bench/RESULTS.md by the npm script). Exits 1 when any seed
// failed. `--report FILE.jsonl...` writes bench/faults/RESULTS.md from earlier runs' files (runs
// of parts of the seeds side by side, on rigs of their own).
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { runSeed, type SeedResult, seedSummary, startFaultRig } from './run.js';

const options = z.object({
  seeds: z.coerce.number().int().positive().default(100),
  from: z.coerce.number().int().nonnegative().default(1),
  seed: z.array(z.coerce.number().int().nonnegative()).default([]),
  window: z
    .string()
    .regex(/^\d+s$/, 'must be seconds, like 30s')
    .default('30s')
    .transform((s) => Number(s.slice(0, -1)) * 1000),
});

function usage(msg: string): never {
  console.error(
    `error: ${msg}\nusage: npm run faults -- [--seeds N] [--from S] [--seed S]... [--window 30s]`,
  );
  process.exit(2);
}

const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];

export function figures(results: SeedResult[]) {
  const live = results
    .map((r) => r.liveMs)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  return {
    seeds: results.length,
    violations: results.reduce((n, r) => n + r.violations.length, 0),
    seedsWithViolations: results.filter((r) => r.violations.length).map((r) => r.seed),
    notLive: results.filter((r) => r.liveMs === undefined).map((r) => r.seed),
    liveP50Ms: live.length ? q(live, 0.5) : undefined,
    liveP95Ms: live.length ? q(live, 0.95) : undefined,
    liveMaxMs: live.at(-1),
    incidents: results.reduce((n, r) => n + r.schedule.incidents.length, 0),
  };
}

async function main() {
  let raw: ReturnType<typeof parseArgs>['values'];
  try {
    const args = parseArgs({
      options: { report: { type: 'boolean' } },
      allowPositionals: true,
      strict: false,
    });
    if (args.values.report) return report(args.positionals);
    raw = parseArgs({
      options: {
        seeds: { type: 'string' },
        from: { type: 'string' },
        seed: { type: 'string', multiple: true },
        window: { type: 'string' },
      },
    }).values;
  } catch (e) {
    usage((e as Error).message);
  }
  const parsed = options.safeParse(raw);
  if (!parsed.success)
    usage(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  const o = parsed.data;
  const seeds = o.seed.length ? o.seed : Array.from({ length: o.seeds }, (_, i) => o.from + i);
  const dir = join('.palisade', 'faults');
  await mkdir(dir, { recursive: true });
  const out = join(dir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  console.log(`fault run: ${seeds.length} seeds (${seeds[0]}..${seeds.at(-1)}), results in ${out}`);
  const started = Date.now();
  const rig = await startFaultRig({ log: (l) => console.log(`[rig] ${l}`) });
  // stopped early: take the replicas, balancers and cluster down with it
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      console.log(`${sig}: stopping the rig`);
      void rig.stop().finally(() => process.exit(130));
    });
  const results: SeedResult[] = [];
  try {
    for (const seed of seeds) {
      const r = await runSeed(rig, seed, { windowMs: o.window });
      results.push(r);
      await appendFile(out, `${JSON.stringify(r)}\n`);
      console.log(`${seedSummary(r)}`);
      if (r.violations.length || r.liveMs === undefined) console.log(r.log.map((l) => `    ${l}`).join('\n'));
    }
  } finally {
    await rig.stop();
  }
  const f = figures(results);
  const s = (ms?: number) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const minutes = (Date.now() - started) / 60_000;
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os.loadavg()[0].toFixed(1)} at the end`;
  console.log(
    `\n${new Date().toISOString().slice(0, 10)} on ${machine}: ` +
      `${f.seeds} seeds, ${f.incidents} incidents, ${f.violations} violations` +
      `${f.seedsWithViolations.length ? ` (seeds ${f.seedsWithViolations.join(', ')})` : ''}, ` +
      `${f.seeds - f.notLive.length} of ${f.seeds} live again` +
      `${f.notLive.length ? ` (not: ${f.notLive.join(', ')})` : ''}; ` +
      `liveness after the last heal p50 ${s(f.liveP50Ms)}, p95 ${s(f.liveP95Ms)}, max ${s(f.liveMaxMs)}; ` +
      `${minutes.toFixed(0)} min`,
  );
  if (results.length >= 20) await writeResults(results, f, machine, minutes, seeds);
  process.exit(f.violations || f.notLive.length ? 1 : 0);
}

/** Results of earlier runs (their .jsonl files), one result per seed, into bench/faults/RESULTS.md. */
async function report(files: string[]) {
  if (!files.length) usage('--report takes the .jsonl files of earlier runs');
  const bySeed = new Map<number, SeedResult>();
  for (const f of files)
    for (const line of (await readFile(f, 'utf8')).split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as SeedResult;
      bySeed.set(r.seed, r);
    }
  const results = [...bySeed.values()].sort((a, b) => a.seed - b.seed);
  const minutes = results.reduce((n, r) => n + r.durationMs, 0) / 60_000;
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
  await writeResults(
    results,
    figures(results),
    `${machine}, ${files.length} rig(s) side by side`,
    minutes,
    results.map((r) => r.seed),
  );
  const f = figures(results);
  console.log(`${f.seeds} seeds, ${f.violations} violations, ${f.seeds - f.notLive.length} live again`);
}

/** "1..50, 51..87" */
export function ranges(seeds: number[]): string {
  const sorted = [...new Set(seeds)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}..${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

async function writeResults(
  results: SeedResult[],
  f: ReturnType<typeof figures>,
  machine: string,
  minutes: number,
  seeds: number[],
) {
  const s = (ms?: number) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const kinds = new Map<string, number>();
  for (const r of results)
    for (const i of r.schedule.incidents) {
      const k =
        i.kind === 'partition'
          ? i.healMidFence
            ? 'partitions healed mid-fence'
            : i.nodes.length > 1
              ? 'partitions of 2-6 nodes'
              : 'partitions of one node'
          : i.kind === 'power'
            ? 'power cuts'
            : i.kind === 'kubelet'
              ? 'kubelet crashes'
              : 'replica kills';
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
  const rows = results.map(
    (r) =>
      `| ${r.seed} | ${r.schedule.incidents.length} | ${r.violations.length} | ${r.liveMs !== undefined ? s(r.liveMs) : `not live: ${r.notLive}`} |`,
  );
  const text = `# Randomized fault run

\`npm run faults -- --seeds 100\` (server/faults/): seeded fault schedules on a twelve-node embedded
cluster with two Palisade replicas (separate processes behind haproxy, fencing on with an
automatic FencePolicy and the built-in power agent), every checker invariant judged all along
(at most one process per StatefulSet identity, one node writing each RWO volume, no instance ID
held by two running pods, no protected workload below its floor), then everything healed and
every pod Ready again (and every pod of an instance-ID workload holding an ID) within 180 s.

## Setup

- ${new Date().toISOString().slice(0, 10)}, commit ${process.env.PALISADE_COMMIT ?? git(['rev-parse', '--short', 'HEAD'])}, ${machine}; ${minutes.toFixed(0)} min of seeds in all
- seeds ${ranges(seeds)} (${seeds.length}): ${f.incidents} incidents — ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}

## Figures

| seeds | violations | live again | liveness after the last heal p50 | p95 | max |
|---|---|---|---|---|---|
| ${f.seeds} | ${f.violations}${f.seedsWithViolations.length ? ` (seeds ${f.seedsWithViolations.join(', ')})` : ''} | ${f.seeds - f.notLive.length} of ${f.seeds} | ${s(f.liveP50Ms)} | ${s(f.liveP95Ms)} | ${s(f.liveMaxMs)} |

## Seeds

| seed | incidents | violations | every pod Ready again after |
|---|---|---|---|
${rows.join('\n')}
`;
  await mkdir('bench/faults', { recursive: true });
  await writeFile('bench/faults/RESULTS.md', text);
  console.log('bench/faults/RESULTS.md written');
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
