// `npx tsx bench/cluster/run.ts [--quick|--until-all] [--no-profile] [--shared-agent]`: the whole embedded cluster at
// scale. Starts `startEmbeddedCluster` for the scale scenario (5000 nodes, 150 000 pods)
// in a child process and measures boot to all nodes Ready, pods Running over time, the
// child's memory, Lease renewal throughput and staleness, and /healthz latency. The run
// is bounded (about 11 minutes on 2 cores): if the pods cannot all start in time, it
// reports how far it got. The full run rewrites bench/cluster/RESULTS.md; --quick (500
// nodes, 5000 pods, about 2 minutes) only prints. --shared-agent is a what-if: the child
// gives client-node one keep-alive agent per KubeConfig (the fix suggested for sim/,
// applied in the bench process only) and the run only prints.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CurvePoint, curve, figures, type Marks, observations, type RunData } from './measure.js';
import { type ProcReading, readProc } from './procfs.js';
import { type ProfileSummary, summarize } from './profile.js';
import {
  Api,
  apiPodCount,
  HealthSampler,
  type LeaseAges,
  LeaseWatcher,
  leaseAges,
  readKubeconfig,
} from './probes.js';
import {
  bytes,
  consoleGrid,
  consoleTable,
  type Machine,
  machine,
  mdTable,
  msFmt,
  num,
  profileConsole,
  profileMarkdown,
  secs,
} from './report.js';
import type { ClientCost } from './protocol.js';
import { ClusterChild, measureClientCost } from './session.js';

interface Config {
  mode: 'full' | 'quick';
  /** Lease renewals per variant in the client-cost phase */
  clientRequests: number;
  /** stop waiting for pods this long after the fork */
  podsDeadlineMs: number;
  steadyMs: number;
  /** the whole run, from the fork: nothing may hang past this */
  hardStopMs: number;
  curveStepMs: number;
  leaseSnapshotEveryMs: number;
  profileMs: number;
  /** start the ramp profile this long after all nodes are Ready */
  rampProfileAfterMs: number;
  progressEveryMs: number;
}

const FULL: Config = {
  mode: 'full',
  clientRequests: 1000,
  podsDeadlineMs: 8.5 * 60_000,
  steadyMs: 30_000,
  hardStopMs: 11 * 60_000,
  curveStepMs: 30_000,
  leaseSnapshotEveryMs: 30_000,
  profileMs: 20_000,
  rampProfileAfterMs: 60_000,
  progressEveryMs: 15_000,
};

/** --until-all: wait up to 40 minutes for every pod to run (the full boot of the scale profile) */
const UNTIL_ALL: Config = {
  ...FULL,
  podsDeadlineMs: 40 * 60_000,
  hardStopMs: 45 * 60_000,
  curveStepMs: 60_000,
};

const QUICK: Config = {
  mode: 'quick',
  clientRequests: 500,
  podsDeadlineMs: 75_000,
  steadyMs: 30_000,
  hardStopMs: 3 * 60_000,
  curveStepMs: 10_000,
  leaseSnapshotEveryMs: 10_000,
  profileMs: 10_000,
  rampProfileAfterMs: 3_000,
  progressEveryMs: 10_000,
};

const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Poll until pred() holds or the deadline passes; true if pred() held. */
async function until(pred: () => boolean, deadline: number): Promise<boolean> {
  while (!pred()) {
    if (Date.now() >= deadline) return false;
    await sleep(250);
  }
  return true;
}

/** A probe that must not hold up the end of the run. */
function bounded<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([p.catch(() => undefined), sleep(ms).then(() => undefined)]);
}

class Run {
  readonly child: ClusterChild;
  readonly proc: ProcReading[] = [];
  readonly snapshots: LeaseAges[] = [];
  readonly marks: Partial<Marks> = {};
  private health: HealthSampler | undefined;
  private leases: LeaseWatcher | undefined;
  private api: Api | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private profiling: string | undefined;
  /** how the child ended, if it did before the bench stopped it */
  earlyExit: string | undefined;
  private readonly requested = new Set<string>();
  readonly hardStopAt: number;

  constructor(
    readonly cfg: Config,
    readonly profile: boolean,
    sharedAgent: boolean,
  ) {
    const args = [...(cfg.mode === 'quick' ? ['--quick'] : []), ...(sharedAgent ? ['--shared-agent'] : [])];
    this.child = new ClusterChild(args);
    this.hardStopAt = this.child.forkedAt + cfg.hardStopMs;
    this.every(1_000, () => {
      const r = readProc(this.child.pid);
      if (r) this.proc.push(r);
    });
  }

  private every(ms: number, f: () => void) {
    this.timers.push(setInterval(f, ms));
  }

  get target() {
    return this.child.api!.target;
  }

  /** Connect the probes once the API server listens. */
  startProbes() {
    const ep = readKubeconfig(this.child.api!.kubeconfigPath);
    this.health = new HealthSampler(ep);
    this.leases = new LeaseWatcher(ep);
    this.api = new Api(ep, 1);
    void this.health.run();
    void this.leases.run();
    let busy = false;
    this.every(this.cfg.leaseSnapshotEveryMs, () => {
      if (busy) return;
      busy = true;
      void this.snapshot().finally(() => (busy = false));
    });
    this.every(250, () => this.tick());
    this.every(this.cfg.progressEveryMs, () => this.progress());
  }

  async snapshot() {
    const t = this.target;
    const s = await bounded(leaseAges(this.api!, t.nodeMonitorGracePeriodMs, t.leaseRenewIntervalMs), 30_000);
    if (s) this.snapshots.push(s);
  }

  /** Milestones from the child's samples, and the profile windows they trigger. */
  private tick() {
    const s = this.child.last;
    const t = this.child.api?.target;
    const api = this.child.api;
    if (!s || !t || !api) return;
    const m = this.marks;
    if (!m.registeredAt && s.nodes.registered >= t.nodes) m.registeredAt = s.at;
    if (!m.bootDoneAt && s.nodes.ready >= t.nodes) m.bootDoneAt = s.at;
    if (!m.podsDoneAt && s.pods.running >= t.pods) m.podsDoneAt = s.at;
    if (this.profiling && this.child.profiles.has(this.profiling)) this.profiling = undefined;
    if (!this.profile || this.profiling) return;
    const now = Date.now();
    if (!m.bootDoneAt && now - api.at > 10_000) this.takeProfile('boot');
    const rampFrom = m.bootDoneAt ?? Number.POSITIVE_INFINITY;
    const timeLeft = this.child.forkedAt + this.cfg.podsDeadlineMs - now;
    if (!m.podsDoneAt && now - rampFrom >= this.cfg.rampProfileAfterMs && timeLeft > this.cfg.profileMs)
      this.takeProfile('ramp');
  }

  /** A profile window still open (the steady window must not contain one). */
  get profilingNow(): boolean {
    return !!this.profiling && !this.child.profiles.has(this.profiling) && this.child.alive;
  }

  takeProfile(label: string) {
    if (this.requested.has(label)) return;
    this.requested.add(label);
    this.profiling = label;
    this.child.send({ type: 'profile', label, ms: this.cfg.profileMs });
  }

  private progress() {
    const s = this.child.last;
    if (!s) return;
    const t = ((Date.now() - this.child.forkedAt) / 1000).toFixed(0).padStart(4);
    const h = this.health?.points.slice(-25).map((p) => p.ms) ?? [];
    const since = Date.now() - this.cfg.progressEveryMs;
    const leases = (this.leases?.countBetween(since, Date.now()) ?? 0) / (this.cfg.progressEveryMs / 1000);
    console.error(
      `[${t} s] nodes Ready ${s.nodes.ready}/${s.nodes.registered}  pods ${s.pods.total} created, ${s.pods.scheduled} bound, ${s.pods.running} Running  rss ${bytes(s.rss)}  leases ${leases.toFixed(0)}/s  healthz max ${msFmt(Math.max(0, ...h))}  loop max ${msFmt(s.loopMaxMs)}  fleet queue ${s.fleetQueue}`,
    );
  }

  apiClient(): Api | undefined {
    return this.api;
  }

  stopProbes() {
    for (const t of this.timers) clearInterval(t);
    this.health?.stop();
    this.leases?.stop();
    this.api?.close();
  }

  data(extra: Pick<RunData, 'final' | 'apiPods' | 'profiles' | 'clientCost'>, hardStopped: boolean): RunData {
    const c = this.child;
    const m = this.marks;
    const startAt = c.api?.startAt ?? c.forkedAt;
    return {
      mode: this.cfg.mode,
      target: c.api!.target,
      marks: {
        forkedAt: c.forkedAt,
        apiAt: c.api?.at,
        startAt,
        startedAt: c.startedAt,
        registeredAt: m.registeredAt,
        bootDoneAt: m.bootDoneAt,
        podsDoneAt: m.podsDoneAt,
        steadyStart: m.steadyStart ?? Date.now(),
        steadyEnd: m.steadyEnd ?? Date.now(),
        endAt: Date.now(),
      },
      samples: c.samples,
      proc: this.proc,
      health: this.health?.points ?? [],
      leaseModified: this.leases?.modified ?? [],
      leaseReconnects: this.leases?.reconnects ?? 0,
      leaseSnapshots: this.snapshots,
      logs: c.logs,
      childError: c.error,
      childExit: this.earlyExit,
      hardStopped,
      curveStepMs: this.cfg.curveStepMs,
      ...extra,
    };
  }
}

async function measure(run: Run, clientCost: ClientCost[] | undefined): Promise<RunData> {
  const { child, cfg } = run;
  const deadline = (ms: number) => Math.min(run.hardStopAt, child.forkedAt + ms);
  await until(() => !!child.api || !child.alive, deadline(120_000));
  if (!child.api) {
    const why = child.error ?? child.stderr.join('\n') ?? 'no output';
    throw new Error(`the cluster child never started its API server:\n${why}`);
  }
  run.startProbes();
  await until(() => !!run.marks.podsDoneAt || !child.alive, deadline(cfg.podsDeadlineMs));
  await until(() => !run.profilingNow, Math.min(run.hardStopAt, Date.now() + cfg.profileMs + 10_000));
  run.marks.steadyStart = Date.now();
  await until(() => !child.alive, Math.min(run.hardStopAt, Date.now() + cfg.steadyMs));
  run.marks.steadyEnd = Date.now();
  if (child.exit) run.earlyExit = `code ${child.exit.code}, signal ${child.exit.signal}`;
  const left = () => Math.max(1_000, run.hardStopAt - Date.now());
  await bounded(run.snapshot(), left());
  const api = run.apiClient();
  const count = api && (await bounded(apiPodCount(api), Math.min(60_000, left())));
  const apiPods = count === undefined ? undefined : { count, at: Date.now() };
  if (run.profile && child.alive) {
    run.takeProfile('steady');
    await until(
      () => child.profiles.has('steady') || !child.alive,
      Math.min(run.hardStopAt, Date.now() + cfg.profileMs + 30_000),
    );
  }
  const final = child.alive ? await child.finalStats(Math.min(120_000, left())) : undefined;
  const hardStopped = Date.now() >= run.hardStopAt;
  run.stopProbes();
  await child.stop();
  // the kubeconfig and infra.json the child wrote hold its (now dead) cluster's tokens
  if (child.api) rmSync(dirname(child.api.kubeconfigPath), { recursive: true, force: true });
  const profiles: ProfileSummary[] = [];
  for (const [label, path] of child.profiles) {
    profiles.push(summarize(path, label));
    console.error(`profile ${label}: ${path} (open in Chrome DevTools)`);
  }
  return run.data({ final, apiPods, profiles, clientCost }, hardStopped);
}

function curveRows(pts: CurvePoint[]): string[][] {
  return pts.map((x) => [
    secs(x.t),
    num(x.s.nodes.ready),
    num(x.s.pods.total),
    num(x.s.pods.scheduled),
    num(x.s.pods.running),
    x.podsPerSec.toFixed(0),
    bytes(x.s.rss),
    x.cpu ? `${x.cpu.child.toFixed(0)} %` : '',
    x.cpu ? `${x.cpu.others.toFixed(0)} %` : '',
    x.leasePerSec.toFixed(0),
    msFmt(x.healthP99),
    msFmt(x.loopMax),
    num(x.s.fleetQueue),
  ]);
}

const CURVE_HEADER = [
  't',
  'nodes Ready',
  'pods created',
  'pods bound',
  'pods Running',
  'Running /s',
  'RSS',
  'cluster CPU',
  'other CPU',
  'leases /s',
  'healthz p99',
  'loop max',
  'fleet queue',
];

function setup(d: RunData, cfg: Config, profile: boolean): string[] {
  const t = d.target;
  return [
    `- Client cost (first, in its own process, before the cluster): an API server alone and client-node clients made as sim/ makes them (\`Clients\` from sim/controllers/runtime/context.ts), ${cfg.clientRequests} Lease merge patches with 16 in flight (the kubelet fleet's concurrency), once as is and once with one shared keep-alive https.Agent.`,
    `- Scenario: \`${t.scenario}\`, ${num(t.nodes)} nodes, ${num(t.pods)} pods from Deployments; Lease renew every ${t.leaseRenewIntervalMs / 1000} s, node status every ${t.nodeStatusUpdateMs / 1000} s, node-monitor grace ${t.nodeMonitorGracePeriodMs / 1000} s.`,
    '- Cluster: `startEmbeddedCluster()` alone in a child process (`node --expose-gc --import tsx bench/cluster/child.ts`): API server, simulated controllers, the kubelet fleet and the infrastructure in one event loop. t = 0 is the call to `startEmbeddedCluster()`.',
    "- Node and pod counts come from the cluster's own informers (the controllers' set, caught as startEmbeddedCluster() starts it, sampled in the child every second); RSS and CPU from /proc/<pid> read by the parent; the end cross-checks the API server's pod count (`?limit=1` + remainingItemCount) and the ground truth's running processes.",
    '- Probes from the parent, raw `node:https` with the kubeconfig token and CA: `/healthz` every 200 ms on its own connection, one watch on kube-node-lease Leases counting MODIFIED events, and a list of those Leases for their renewTime ages.',
    `- Phases: boot until every node is Ready; ramp until every pod is Running or ${secs(cfg.podsDeadlineMs)} after the fork; steady = the ${secs(cfg.steadyMs)} after that; hard stop ${secs(cfg.hardStopMs)} after the fork.`,
    profile
      ? `- CPU profiles (in-process inspector, ${secs(cfg.profileMs)} each) were taken during boot (if still booting 10 s after the API server is up), during the ramp (${secs(cfg.rampProfileAfterMs)} after boot) and after the steady window, never inside it.`
      : '- No CPU profiles (--no-profile).',
  ];
}

function markdown(
  d: RunData,
  pts: CurvePoint[],
  m: Machine,
  cfg: Config,
  profile: boolean,
  command: string,
): string {
  const rows = figures(d, pts).map((r) => [r.phase, r.metric, r.value, r.notes ?? '']);
  const obs = observations(d, pts);
  return [
    '# Embedded cluster benchmark',
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory} RAM, ${m.os}`,
    `- Node: ${m.node}`,
    `- Command: \`${command}\``,
    `- Wall time: ${secs(d.marks.endAt - d.marks.forkedAt)}`,
    '',
    '## Setup',
    '',
    ...setup(d, cfg, profile),
    '',
    '## Figures',
    '',
    mdTable(['phase', 'metric', 'value', 'notes'], rows),
    '',
    `## Curve (every ${cfg.curveStepMs / 1000} s from t = 0)`,
    '',
    mdTable(CURVE_HEADER, curveRows(pts)),
    '',
    '## Observations',
    '',
    ...(obs.length ? obs.map((o) => `- ${o}`) : ['- Nothing notable.']),
    '',
    ...(d.profiles.length
      ? ['## CPU profiles', '', ...d.profiles.flatMap((p) => [profileMarkdown(p), ''])]
      : []),
  ].join('\n');
}

function print(d: RunData, pts: CurvePoint[], sharedAgent: boolean) {
  const whatIf = sharedAgent
    ? ', WHAT-IF: one shared keep-alive agent per KubeConfig (sim/ as built does not)'
    : '';
  console.log(`\nEmbedded cluster bench (${d.mode}${whatIf}): ${d.target.scenario}\n`);
  console.log(consoleTable(figures(d, pts)));
  console.log('\nCurve:\n');
  console.log(consoleGrid(CURVE_HEADER, curveRows(pts)));
  for (const p of d.profiles) console.log(`\n${profileConsole(p)}`);
  console.log('\nObservations:');
  for (const o of observations(d, pts)) console.log(`- ${o}`);
}

async function main() {
  const args = process.argv.slice(2);
  const cfg = args.includes('--quick') ? QUICK : args.includes('--until-all') ? UNTIL_ALL : FULL;
  const profile = !args.includes('--no-profile');
  const sharedAgent = args.includes('--shared-agent');
  const command = ['npx tsx bench/cluster/run.ts', ...args].join(' ');
  const m = machine();
  console.error(
    `cluster bench (${cfg.mode}) on ${m.cpu}, ${m.cores} cores; hard stop after ${secs(cfg.hardStopMs)}`,
  );
  console.error(`client cost: ${cfg.clientRequests} Lease renewals per variant, API server alone`);
  const clientCost = await measureClientCost(cfg.clientRequests, 120_000);
  const run = new Run(cfg, profile, sharedAgent);
  let d: RunData;
  try {
    d = await measure(run, clientCost);
  } finally {
    run.stopProbes();
    await run.child.stop();
  }
  const pts = curve(d);
  print(d, pts, sharedAgent);
  if (sharedAgent) {
    console.log('\n(what-if run with --shared-agent: bench/cluster/RESULTS.md left as it is)');
  } else if (cfg.mode === 'full') {
    writeFileSync(resultsPath, markdown(d, pts, m, cfg, profile, command));
    console.log(`\nwrote ${resultsPath}`);
  } else {
    console.log('\n(quick run: bench/cluster/RESULTS.md left as it is)');
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`cluster bench failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
