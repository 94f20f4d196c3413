// The storm bench's figures as rows (with their targets), and bench/protection/RESULTS.md
// in the shape bench/combine.ts folds into bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { percentile } from '../http.js';
import { bullets, type Machine, markdownTable, passes, type Row, resultsHeader, section } from '../report.js';
import { cpuNote } from './cpu.js';
import type { StormConfig, StormResult } from './stormPhase.js';
import type { LatencySeries } from './unprotected.js';

const p = (v: number[], q: number) => percentile(v, q);
const ms1 = (v: number) => `${v.toFixed(1)} ms`;

/** reviews the RetryBatch judged: protected pods not yet terminating */
export const judged = (s: StormResult) => s.webhook.reviews.filter((r) => r.protected && !r.terminating);

/** distinct pods the webhook admitted through the RetryBatch */
export const admittedByWebhook = (s: StormResult) =>
  new Set(
    judged(s)
      .filter((r) => r.allowed)
      .map((r) => r.podUid),
  ).size;

export const okWrites = (s: StormResult) => s.webhook.writes.ok ?? 0;

export function throughput(s: StormResult) {
  return s.run.requests.length / (s.run.elapsedMs / 1000);
}

function answers(s: StormResult) {
  const b = s.tally.byStatus;
  const known = [200, 404, 409, 429];
  const other = Object.entries(b)
    .filter(([k]) => !known.includes(Number(k)))
    .map(([k, v]) => `${v} HTTP ${k}`);
  return [
    `${b[200] ?? 0} × 200`,
    `${b[429] ?? 0} × 429 too few`,
    `${b[409] ?? 0} × 409 buffer full`,
    `${b[404] ?? 0} × 404 gone`,
    ...other,
  ].join(', ');
}

function byAnswer(reviews: StormResult['webhook']['reviews']): string {
  const codes = [...new Set(reviews.map((r) => r.code))].sort();
  return codes
    .map((code) => {
      const v = reviews.filter((r) => r.code === code).map((r) => r.ms);
      return `${code} ${ms1(p(v, 99))} (${v.length})`;
    })
    .join(', ');
}

function apiNote(v: number[]): string {
  return v.length ? `${v.length}, p50 ${ms1(p(v, 50))} / p99 ${ms1(p(v, 99))}` : 'none';
}

/** Which of the issue's storm targets a storm's rows carry (over-admission: always). */
export interface StormTargets {
  /** >= 10 admissions per status write: for the full storm (a quick one has a quota of 20) */
  perWrite: boolean;
  /** admission p99 <= 50 ms */
  latency: boolean;
}

export function stormRows(s: StormResult, cfg: StormConfig, targets: StormTargets): Row[] {
  const sec = s.label;
  const j = judged(s);
  const quota = cfg.pods - cfg.minAvailable;
  const apiOver = Math.max(0, cfg.minAvailable - s.after.available);
  const writes = okWrites(s);
  const admitted = admittedByWebhook(s);
  const perWrite = writes > 0 ? admitted / writes : Number.NaN;
  const clientMs = s.run.requests.map((r) => r.ms);
  const reviews = s.webhook.reviews.length;
  const rounds = s.webhook.rounds;
  return [
    {
      section: sec,
      metric: 'over-admitted pods (answers)',
      value: s.tally.overAdmitted,
      unit: 'pods',
      target: { op: '<=', value: 0 },
      note: `${s.tally.deletedPods} distinct pods got a 200, quota ${quota} (${cfg.pods} Ready, minAvailable ${cfg.minAvailable}); ${answers(s)}${s.tally.firstError ? `; first other: ${s.tally.firstError}` : ''}`,
    },
    {
      section: sec,
      metric: 'over-admitted pods (API after the storm)',
      value: apiOver,
      unit: 'pods',
      target: { op: '<=', value: 0 },
      note: `${s.after.available} available, ${s.after.terminating} terminating, ${s.after.total} in the API; protection checker violations: ${s.violations.length}${s.violations[0] ? ` (${s.violations[0].message})` : ''}; settled status: aggregated ${s.settled.aggregatedAvailableReplicas}, estimated ${s.settled.estimatedAvailableReplicas}`,
    },
    {
      section: sec,
      metric: 'admissions per status write',
      value: perWrite,
      unit: '',
      target: targets.perWrite ? { op: '>=', value: 10 } : undefined,
      note: `${admitted} pods admitted by the webhook / ${writes} status writes (${s.webhook.writes.conflict ?? 0} conflicts); ${rounds.count} RetryBatch rounds, ${rounds.count ? (rounds.sum / rounds.count).toFixed(1) : '0'} requests per round; aggregator wrote ${s.aggregator.writes.ok ?? 0} times meanwhile`,
    },
    {
      section: sec,
      metric: 'admission latency p50 (webhook)',
      value: p(
        j.map((r) => r.ms),
        50,
      ),
      unit: 'ms',
      note: `Admission.decide() for the ${j.length} reviews the RetryBatch judged (ready, not terminating): batch wait and status write included`,
    },
    {
      section: sec,
      metric: 'admission latency p99 (webhook)',
      value: p(
        j.map((r) => r.ms),
        99,
      ),
      unit: 'ms',
      target: targets.latency ? { op: '<=', value: 50 } : undefined,
      note: `max ${ms1(Math.max(0, ...j.map((r) => r.ms)))}; p99 by answer: ${byAnswer(j)}; the webhook's status writes ${apiNote(s.webhook.apiMs.write)}, fresh reads after a conflict ${apiNote(s.webhook.apiMs.read)}; whole HTTPS request in the webhook p99 ${ms1(p(s.webhook.httpMs, 99))} over all ${s.webhook.httpMs.length} reviews`,
    },
    {
      section: sec,
      metric: 'DELETE latency p99 (client, through the API server)',
      value: p(clientMs, 99),
      unit: 'ms',
      note: `p50 ${ms1(p(clientMs, 50))}, max ${ms1(Math.max(...clientMs))}, ${cfg.clients} clients on keep-alive connections`,
    },
    {
      section: sec,
      metric: 'DELETEs answered per second',
      value: throughput(s),
      unit: '/s',
      note: `${s.run.requests.length} in ${(s.run.elapsedMs / 1000).toFixed(2)} s`,
    },
    {
      section: sec,
      metric: 'webhook CPU per admission review',
      value: reviews ? s.webhook.cpuMs / reviews : Number.NaN,
      unit: 'ms',
      note: `${s.webhook.cpuMs.toFixed(0)} ms CPU (process.cpuUsage of the webhook process) / ${reviews} reviews (${s.webhook.connections} TLS connections accepted); per admitted deletion ${admitted ? (s.webhook.cpuMs / admitted).toFixed(1) : 'n/a'} ms; CPU: ${cpuNote(s.cpu)}`,
    },
  ];
}

export function ratioRows(on: StormResult, off: StormResult): Row[] {
  const sec = 'batching on vs off';
  const wOn = okWrites(on);
  const wOff = okWrites(off);
  const p99 = (s: StormResult) =>
    p(
      judged(s).map((r) => r.ms),
      99,
    );
  return [
    {
      section: sec,
      metric: 'status writes, off / on',
      value: wOn ? wOff / wOn : Number.NaN,
      unit: 'x',
      note: `${wOff} writes without batching, ${wOn} with (${admittedByWebhook(off)} and ${admittedByWebhook(on)} admitted)`,
    },
    {
      section: sec,
      metric: 'admission latency p99, off / on',
      value: p99(on) ? p99(off) / p99(on) : Number.NaN,
      unit: 'x',
      note: `${ms1(p99(off))} without batching, ${ms1(p99(on))} with`,
    },
    {
      section: sec,
      metric: 'DELETEs per second, on / off',
      value: throughput(off) ? throughput(on) / throughput(off) : Number.NaN,
      unit: 'x',
      note: `${throughput(on).toFixed(0)} /s with batching, ${throughput(off).toFixed(0)} /s without`,
    },
  ];
}

export function unprotectedRows(u: LatencySeries): Row[] {
  const sec = 'unprotected DELETE';
  const added = (q: number) => p(u.webhookMs, q) - p(u.controlMs, q);
  return [
    {
      section: sec,
      metric: 'added latency p50 (webhook)',
      value: added(50),
      unit: 'ms',
      note: `with webhook p50 ${ms1(p(u.webhookMs, 50))} / p99 ${ms1(p(u.webhookMs, 99))}, control p50 ${ms1(p(u.controlMs, 50))} / p99 ${ms1(p(u.controlMs, 99))}, ${u.webhookMs.length} pairs, one request at a time`,
    },
    {
      section: sec,
      metric: 'added latency p99 (webhook)',
      value: added(99),
      unit: 'ms',
      target: { op: '<=', value: 2 },
      note: `the API server keeps its connections to the webhook (${u.connections} TLS connections accepted for ${u.reviews} reviews); CPU: ${cpuNote(u.cpu)}`,
    },
    // timed inside the embedded API server only: kube-apiserver's own calls cannot be timed here
    ...(u.apiServerCallMs.length
      ? [
          {
            section: sec,
            metric: "API server's webhook call p99",
            value: p(u.apiServerCallMs, 99),
            unit: 'ms',
            note: `p50 ${ms1(p(u.apiServerCallMs, 50))}; from https.request() to the answer's last byte, timed in the cluster process (${u.apiServerCallMs.length} calls; the kubelets' final DELETEs of terminated pods left out)`,
          },
        ]
      : []),
    {
      section: sec,
      metric: 'the webhook called straight from the bench p99',
      value: p(u.directMs, 99),
      unit: 'ms',
      note: `p50 ${ms1(p(u.directMs, 50))}; the same kind of AdmissionReview over one kept-alive connection from the bench process, one at a time (${u.directMs.length} calls): the round trip without the cluster's event loop`,
    },
    {
      section: sec,
      metric: "webhook's own time per review p99",
      value: p(u.webhookHttpMs, 99),
      unit: 'ms',
      note: `p50 ${ms1(p(u.webhookHttpMs, 50))}, request event to last byte in the webhook process; its CPU ${u.webhookCpuMsPerReview.toFixed(2)} ms per review`,
    },
  ];
}

export function revision(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const dirty = git(['status', '--porcelain', '--', 'server/protection', 'lib/protection', 'sim']) !== '';
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ' + uncommitted changes in server/protection, lib/protection or sim/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export interface ResultsDoc {
  machine: Machine;
  revision: string;
  command: string;
  durationS: number;
  rows: Row[];
  setup: string[];
  observations: string[];
  /** said at the top when other processes took a large share of the cores */
  warning?: string;
  /** the webhook's CPU profiles, as markdown (--profile) */
  profiles?: string[];
}

export function writeResults(path: string, d: ResultsDoc) {
  const m = d.machine;
  const targeted = d.rows.filter((r) => r.target);
  const failed = targeted.filter((r) => passes(r) === false).length;
  const text = [
    ...resultsHeader({
      title: 'Deletion protection benchmark',
      machine: m,
      revision: d.revision,
      command: d.command,
      durationS: d.durationS,
      met: targeted.length - failed,
      targeted: targeted.length,
      warning: d.warning,
    }),
    ...section('Setup', bullets(d.setup)),
    ...section('Figures', [markdownTable(d.rows)]),
    ...section('Observations', bullets(d.observations)),
    ...(d.profiles?.length
      ? section(
          'Webhook CPU profiles',
          d.profiles.flatMap((p) => [p, '']),
        )
      : []),
  ].join('\n');
  writeFileSync(path, text);
}
