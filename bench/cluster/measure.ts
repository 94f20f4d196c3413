// Turns what the run collected (the child's samples, /proc readings, /healthz probes,
// Lease events) into the figures, the 30-second curve and the observations.
import type { ProcReading } from './procfs.js';
import { cpuShare } from './procfs.js';
import type { ProfileSummary } from './profile.js';
import type { HealthPoint, LeaseAges } from './probes.js';
import { percentiles } from './probes.js';
import type { ClientCost, Final, Sample, Target } from './protocol.js';
import { bytes, msFmt, num, type Row, secs } from './report.js';

export interface Marks {
  forkedAt: number;
  apiAt?: number;
  /** the child called startEmbeddedCluster: t = 0 of every curve */
  startAt: number;
  startedAt?: number;
  registeredAt?: number;
  bootDoneAt?: number;
  podsDoneAt?: number;
  steadyStart: number;
  steadyEnd: number;
  endAt: number;
}

export interface RunData {
  mode: string;
  target: Target;
  marks: Marks;
  samples: Sample[];
  proc: ProcReading[];
  health: HealthPoint[];
  leaseModified: number[];
  leaseReconnects: number;
  leaseSnapshots: LeaseAges[];
  final?: Final;
  /** the API server's pod count, and when it answered */
  apiPods?: { count: number; at: number };
  profiles: ProfileSummary[];
  clientCost?: ClientCost[];
  logs: { at: number; msg: string }[];
  childError?: string;
  childExit?: string;
  hardStopped: boolean;
  curveStepMs: number;
}

interface Window {
  from: number;
  to: number;
}

const within = <T extends { at: number }>(xs: T[], w: Window) =>
  xs.filter((x) => x.at >= w.from && x.at < w.to);

/** The last sample taken at or before `at`. */
function sampleAt(samples: Sample[], at: number): Sample | undefined {
  let best: Sample | undefined;
  for (const s of samples) if (s.at <= at) best = s;
  return best;
}

function procAt(proc: ProcReading[], at: number): ProcReading | undefined {
  let best: ProcReading | undefined;
  for (const p of proc) if (p.at <= at) best = p;
  return best ?? proc[0];
}

function cpuIn(proc: ProcReading[], w: Window) {
  const a = procAt(proc, w.from);
  const b = procAt(proc, w.to);
  return a && b && b.at > a.at ? cpuShare(a, b) : undefined;
}

function leaseRate(d: RunData, w: Window): number {
  let n = 0;
  for (const t of d.leaseModified) if (t >= w.from && t < w.to) n++;
  return w.to > w.from ? n / ((w.to - w.from) / 1000) : 0;
}

function healthIn(d: RunData, w: Window) {
  const pts = within(d.health, w);
  return { ...percentiles(pts.map((p) => p.ms)), failed: pts.filter((p) => !p.ok).length };
}

function loopIn(d: RunData, w: Window) {
  const s = within(d.samples, w);
  return {
    p99: Math.max(0, ...s.map((x) => x.loopP99Ms)),
    max: Math.max(0, ...s.map((x) => x.loopMaxMs)),
  };
}

export interface CurvePoint {
  t: number;
  s: Sample;
  podsPerSec: number;
  cpu?: ReturnType<typeof cpuShare>;
  healthP99: number;
  leasePerSec: number;
  loopMax: number;
}

/** One point every curveStepMs from t = 0 (startEmbeddedCluster called), plus the last sample. */
export function curve(d: RunData): CurvePoint[] {
  const out: CurvePoint[] = [];
  const last = d.samples[d.samples.length - 1];
  if (!last) return out;
  const ats: number[] = [];
  for (let at = d.marks.startAt + d.curveStepMs; at < last.at; at += d.curveStepMs) ats.push(at);
  ats.push(last.at);
  let prev = { at: d.marks.startAt, running: 0 };
  for (const at of ats) {
    const s = sampleAt(d.samples, at);
    if (!s) continue;
    const w = { from: prev.at, to: at };
    out.push({
      t: at - d.marks.startAt,
      s,
      podsPerSec: (s.pods.running - prev.running) / ((at - prev.at) / 1000 || 1),
      cpu: cpuIn(d.proc, w),
      healthP99: healthIn(d, w).p99,
      leasePerSec: leaseRate(d, w),
      loopMax: loopIn(d, w).max,
    });
    prev = { at, running: s.pods.running };
  }
  return out;
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : 'n/a');
const cpuNote = (c?: ReturnType<typeof cpuShare>) =>
  c
    ? `cluster CPU ${c.child.toFixed(0)} % of a core, bench ${c.parent.toFixed(0)} %, other processes ${c.others.toFixed(0)} %`
    : '';

export interface Phases {
  boot: Window;
  ramp: Window;
  steady: Window;
}

export function phases(d: RunData): Phases {
  const m = d.marks;
  const bootEnd = m.bootDoneAt ?? m.steadyStart;
  return {
    boot: { from: m.startAt, to: bootEnd },
    ramp: { from: bootEnd, to: m.steadyStart },
    steady: { from: m.steadyStart, to: m.steadyEnd },
  };
}

function startupRows(d: RunData): Row[] {
  const m = d.marks;
  const rows: Row[] = [];
  if (m.apiAt)
    rows.push({
      phase: 'startup',
      metric: 'fork to API server listening',
      value: secs(m.apiAt - m.forkedAt),
      notes: 'node start, tsx module load, CA and serving certificate',
    });
  if (m.startedAt) {
    const milestones = d.logs.map((l) => `${secs(l.at - m.startAt)} ${l.msg}`).join('; ');
    rows.push({
      phase: 'startup',
      metric: 'startEmbeddedCluster() returned',
      value: secs(m.startedAt - m.startAt),
      notes: milestones,
    });
  }
  return rows;
}

function bootRows(d: RunData, p: Phases): Row[] {
  const m = d.marks;
  const n = d.target.nodes;
  const last = d.samples[d.samples.length - 1];
  const rows: Row[] = [];
  const firstReady = d.samples.find((s) => s.nodes.ready > 0);
  rows.push({
    phase: 'boot',
    metric: `all ${num(n)} nodes registered`,
    value: m.registeredAt ? secs(m.registeredAt - m.startAt) : 'not reached',
    notes: [
      m.registeredAt ? '' : `${num(last?.nodes.registered ?? 0)} registered at the end`,
      firstReady ? `first node Ready at ${secs(firstReady.at - m.startAt)}` : 'no node ever Ready',
    ]
      .filter(Boolean)
      .join('; '),
  });
  rows.push({
    phase: 'boot',
    metric: `all ${num(n)} nodes Ready`,
    value: m.bootDoneAt ? secs(m.bootDoneAt - m.startAt) : 'not reached',
    notes: [
      m.bootDoneAt
        ? `${secs(m.bootDoneAt - m.forkedAt)} from fork`
        : `${num(last?.nodes.ready ?? 0)} Ready at the end`,
      cpuNote(cpuIn(d.proc, p.boot)),
    ]
      .filter(Boolean)
      .join('; '),
  });
  return rows;
}

/** Pods Running per second over the last `spanMs` of the run. */
function recentRate(d: RunData, spanMs: number): number {
  const last = d.samples[d.samples.length - 1];
  const before = last && sampleAt(d.samples, last.at - spanMs);
  if (!last || !before || last.at === before.at) return 0;
  return (last.pods.running - before.pods.running) / ((last.at - before.at) / 1000);
}

function podRows(d: RunData, pts: CurvePoint[]): Row[] {
  const m = d.marks;
  const target = d.target.pods;
  const end = sampleAt(d.samples, m.steadyStart) ?? d.samples[d.samples.length - 1];
  if (!end) return [];
  const firstRunning = d.samples.find((s) => s.pods.running > 0);
  const rows: Row[] = [];
  const reached = m.podsDoneAt !== undefined;
  rows.push({
    phase: 'pods',
    metric: `pods Running (target ${num(target)})`,
    value: reached
      ? secs(m.podsDoneAt! - m.startAt)
      : `${num(end.pods.running)} (${pct(end.pods.running, target)})`,
    notes: reached
      ? `all ${num(target)} Running; first pod Running at ${secs((firstRunning?.at ?? m.startAt) - m.startAt)}`
      : `not reached by ${secs(end.at - m.startAt)}; created ${num(end.pods.total)}, scheduled ${num(end.pods.scheduled)}, Running ${num(end.pods.running)}, Ready ${num(end.pods.ready)}`,
  });
  if (firstRunning) {
    const doneAt = m.podsDoneAt ?? end.at;
    const running = reached ? target : end.pods.running;
    const avg = running / ((doneAt - firstRunning.at) / 1000 || 1);
    const peak = Math.max(0, ...pts.map((x) => x.podsPerSec));
    rows.push({
      phase: 'pods',
      metric: 'pods reaching Running, per second',
      value: `${avg.toFixed(0)} /s`,
      notes: `average from the first Running pod; best ${d.curveStepMs / 1000} s interval ${peak.toFixed(0)} /s`,
    });
  }
  if (!reached) {
    const rate = recentRate(d, 60_000);
    const left = target - end.pods.running;
    rows.push({
      phase: 'pods',
      metric: 'time still needed at the last 60 s rate',
      value: rate > 0 ? secs((1000 * left) / rate) : 'never (no progress)',
      notes: `${num(left)} pods left at ${rate.toFixed(0)} /s`,
    });
  }
  return rows;
}

function leaseRows(d: RunData, p: Phases): Row[] {
  const t = d.target;
  const expected = t.nodes / (t.leaseRenewIntervalMs / 1000);
  const steady = leaseRate(d, p.steady);
  const ramp = leaseRate(d, p.ramp);
  const snap = d.leaseSnapshots[d.leaseSnapshots.length - 1];
  const worst = d.leaseSnapshots.reduce<LeaseAges | undefined>(
    (w, s) => (!w || s.staleGrace > w.staleGrace || s.maxMs > w.maxMs ? s : w),
    undefined,
  );
  const last = d.samples[d.samples.length - 1];
  const rows: Row[] = [
    {
      phase: 'steady',
      metric: 'Lease renewals (MODIFIED in kube-node-lease)',
      value: `${steady.toFixed(0)} /s`,
      notes: `expected ${expected.toFixed(0)} /s (${num(t.nodes)} nodes / ${t.leaseRenewIntervalMs / 1000} s) = ${pct(steady, expected)}; over ${secs(p.steady.to - p.steady.from)}; watch reconnects ${d.leaseReconnects}`,
    },
  ];
  if (p.ramp.to - p.ramp.from >= 5_000)
    rows.push({
      phase: 'ramp',
      metric: 'Lease renewals while pods start',
      value: `${ramp.toFixed(0)} /s`,
      notes: `${pct(ramp, expected)} of expected, over ${secs(p.ramp.to - p.ramp.from)}`,
    });
  if (snap)
    rows.push({
      phase: 'steady',
      metric: `leases older than grace (${t.nodeMonitorGracePeriodMs / 1000} s) at the end`,
      value: `${snap.staleGrace} of ${snap.leases} (${pct(snap.staleGrace, snap.leases)})`,
      notes: `of the renewed ones: age p50 ${secs(snap.p50Ms)}, p99 ${secs(snap.p99Ms)}, max ${secs(snap.maxMs)}, older than 2 renew intervals ${snap.staleTwoIntervals}; created but never renewed ${snap.neverRenewed}; nodes without a Lease ${Math.max(0, t.nodes - snap.leases)}`,
    });
  if (worst)
    rows.push({
      phase: 'run',
      metric: 'worst Lease snapshot during the run',
      value: `${worst.staleGrace} older than grace`,
      notes: `at ${secs(worst.at - d.marks.startAt)}: max age ${secs(worst.maxMs)}, p99 ${secs(worst.p99Ms)}, ${worst.staleTwoIntervals} older than 2 intervals, ${worst.neverRenewed} never renewed; ${d.leaseSnapshots.length} snapshots`,
    });
  if (last)
    rows.push({
      phase: 'run',
      metric: 'nodes that lost Ready (went Unknown/NotReady)',
      value: `${last.nodesLostReady}`,
      notes: `at the end: ${last.nodes.ready} Ready, ${last.nodes.unknown} Unknown, ${last.nodes.notReady} NotReady (cluster's own node informer)`,
    });
  return rows;
}

function healthRows(d: RunData, p: Phases): Row[] {
  const rows: Row[] = [];
  for (const [name, w] of [
    ['steady', p.steady],
    ['ramp', p.ramp],
    ['boot', p.boot],
  ] as const) {
    const h = healthIn(d, w);
    if (!h.n) continue;
    const loop = loopIn(d, w);
    rows.push({
      phase: name,
      metric: '/healthz latency p50 / p99 / max',
      value: `${msFmt(h.p50)} / ${msFmt(h.p99)} / ${msFmt(h.max)}`,
      notes: `${h.n} probes every 200 ms${h.failed ? `, ${h.failed} failed` : ''}; cluster event-loop delay p99 up to ${msFmt(loop.p99)}, max ${msFmt(loop.max)}; ${cpuNote(cpuIn(d.proc, w))}`,
    });
  }
  return rows;
}

function memoryRows(d: RunData): Row[] {
  const rows: Row[] = [];
  const f = d.final;
  const end = d.samples[d.samples.length - 1];
  const peak = Math.max(f?.maxRss ?? 0, ...d.proc.map((x) => x.hwm));
  const pods = end?.pods.total ?? 0;
  if (f)
    rows.push({
      phase: 'memory',
      metric: 'cluster RSS after forced GC',
      value: bytes(f.rss),
      notes: `heap used ${bytes(f.heapUsed)} (heap total ${bytes(f.heapTotal)}) of ${bytes(f.heapLimit)} limit, external ${bytes(f.external)}; ${pods ? `${bytes(f.rss / pods)} per pod` : ''} (${num(pods)} pods, ${num(d.target.nodes)} nodes); gc took ${msFmt(f.gcMs)}`,
    });
  else {
    const p = d.proc[d.proc.length - 1];
    rows.push({
      phase: 'memory',
      metric: 'cluster RSS at the end (no forced GC: child did not answer)',
      value: p ? bytes(p.rss) : 'n/a',
    });
  }
  rows.push({
    phase: 'memory',
    metric: 'cluster peak RSS',
    value: bytes(peak),
    notes: 'VmHWM / getrusage maxRSS',
  });
  return rows;
}

function crossCheckRows(d: RunData): Row[] {
  // the child's view at the moment the API server answered, so the counts compare
  const end = (d.apiPods && sampleAt(d.samples, d.apiPods.at)) ?? d.samples[d.samples.length - 1];
  if (!end) return [];
  return [
    {
      phase: 'end',
      metric: 'pods: API server / informer / Running / ground-truth processes',
      value: `${d.apiPods === undefined ? 'n/a' : num(d.apiPods.count)} / ${num(end.pods.total)} / ${num(end.pods.running)} / ${num(end.processes)}`,
      notes: `at ${secs(end.at - d.marks.startAt)}; kubelet fleet queue ${num(end.fleetQueue)} keys`,
    },
  ];
}

function clientRows(d: RunData): Row[] {
  return (d.clientCost ?? []).map((c) => ({
    phase: 'client',
    metric: `Lease renewal via client-node: ${c.variant}`,
    value: `${c.perSec.toFixed(0)} /s`,
    notes: `${c.cpuMsPerRequest.toFixed(2)} ms CPU per request (client and server ends, one process), ${c.requests} merge patches, 16 in flight, API server alone`,
  }));
}

export function figures(d: RunData, pts: CurvePoint[]): Row[] {
  const p = phases(d);
  return [
    ...clientRows(d),
    ...startupRows(d),
    ...bootRows(d, p),
    ...podRows(d, pts),
    ...leaseRows(d, p),
    ...healthRows(d, p),
    ...memoryRows(d),
    ...crossCheckRows(d),
  ];
}

/** Findings worth a sentence, each with the evidence that supports it. */
export function observations(d: RunData, pts: CurvePoint[]): string[] {
  const out: string[] = [];
  const p = phases(d);
  const t = d.target;
  const end = sampleAt(d.samples, d.marks.steadyStart) ?? d.samples[d.samples.length - 1];
  if (d.childError) out.push(`The cluster child failed: ${d.childError.split('\n').slice(0, 3).join(' ')}`);
  if (d.childExit) out.push(`The cluster child exited early: ${d.childExit}.`);
  if (d.hardStopped) out.push('The hard time limit stopped the run; figures are as far as it got.');
  out.push(...startupObservations(d));
  if (end && d.marks.podsDoneAt === undefined) {
    const stuck =
      end.pods.total < t.pods
        ? `pod creation (ReplicaSet controller): only ${num(end.pods.total)} of ${num(t.pods)} pods exist`
        : end.pods.scheduled < end.pods.total
          ? `scheduling: ${num(end.pods.total - end.pods.scheduled)} pods wait for a node`
          : `the kubelets: ${num(end.pods.scheduled - end.pods.running)} bound pods are not Running yet (fleet queue ${num(end.fleetQueue)})`;
    const rate = recentRate(d, 60_000);
    const eta =
      rate > 0
        ? `at the last 60 s rate (${rate.toFixed(1)} /s) the rest would need ${secs(((t.pods - end.pods.running) * 1000) / rate)} more`
        : 'none started in the last 60 s';
    out.push(
      `${num(end.pods.running)} of ${num(t.pods)} pods were Running after ${secs(end.at - d.marks.startAt)}; ${eta}. The furthest-behind stage is ${stuck}.`,
      `The cluster never reached a steady state, so the "steady" window is the ${secs(d.marks.steadyEnd - d.marks.steadyStart)} after the deadline, under ${d.marks.bootDoneAt ? 'pod start-up' : 'node boot and pod start-up'} load.`,
    );
  }
  const expected = t.nodes / (t.leaseRenewIntervalMs / 1000);
  for (const [name, w] of [
    ['steady', p.steady],
    ['ramp', p.ramp],
  ] as const) {
    const r = leaseRate(d, w);
    if (w.to - w.from >= 5_000 && r < 0.9 * expected)
      out.push(
        `Lease renewals in the ${name} window ran at ${r.toFixed(0)} /s, ${pct(r, expected)} of the ${expected.toFixed(0)} /s that ${num(t.nodes)} nodes renewing every ${t.leaseRenewIntervalMs / 1000} s need (kubelets renew Leases in a lane of their own; pod work queue at the end ${num(end?.fleetQueue ?? 0)} keys).`,
      );
  }
  const worstStale = Math.max(0, ...d.leaseSnapshots.map((s) => s.staleGrace));
  if (worstStale > 0)
    out.push(
      `Up to ${worstStale} node Leases were older than the ${t.nodeMonitorGracePeriodMs / 1000} s grace period in one snapshot: the node lifecycle controller may mark those nodes Unknown.`,
    );
  const lost = d.samples[d.samples.length - 1]?.nodesLostReady ?? 0;
  if (lost > 0)
    out.push(`${lost} nodes went from Ready to not Ready during the run (no fault was injected).`);
  for (const [name, w] of [
    ['steady', p.steady],
    ['ramp', p.ramp],
  ] as const) {
    const h = healthIn(d, w);
    const loop = loopIn(d, w);
    if (h.n && h.p99 > 100)
      out.push(
        `/healthz p99 was ${msFmt(h.p99)} (max ${msFmt(h.max)}) in the ${name} window: the API server shares its event loop with every controller and kubelet, and that loop stalled for up to ${msFmt(loop.max)}.`,
      );
    const cpu = cpuIn(d.proc, w);
    if (cpu && cpu.child > 90)
      out.push(
        `In the ${name} window the cluster process used ${cpu.child.toFixed(0)} % of a core: its single JavaScript thread is the limit, not the machine's ${cpu.child > 150 ? '' : 'second '}core.`,
      );
    if (cpu && cpu.others > 25)
      out.push(
        `Other processes used ${cpu.others.toFixed(0)} % of a core during the ${name} window: the figures are pessimistic by that much contention.`,
      );
  }
  out.push(...clientObservations(d));
  if (d.final && d.final.heapUsed > 0.7 * d.final.heapLimit)
    out.push(
      `Heap after GC is ${bytes(d.final.heapUsed)} of a ${bytes(d.final.heapLimit)} limit: close to an out-of-memory crash.`,
    );
  for (const prof of d.profiles) {
    const sim = prof.inclusive.filter((h) => h.name.includes(' sim/')).slice(0, 4);
    if (sim.length)
      out.push(
        `Profile ${prof.label}: ${sim.map((h) => `${h.name} ${h.pct.toFixed(0)} %`).join(', ')} (inclusive); GC ${prof.gcPct.toFixed(0)} %, idle ${prof.idlePct.toFixed(0)} %.`,
      );
  }
  if (pts.length === 0) out.push('No samples arrived from the cluster child.');
  return out;
}

/** What the per-request cost means for the load this cluster must carry. */
function clientObservations(d: RunData): string[] {
  const [plain, shared] = d.clientCost ?? [];
  if (!plain || !shared) return [];
  const t = d.target;
  const leasesPerSec = t.nodes / (t.leaseRenewIntervalMs / 1000);
  const statusPerSec = t.nodes / (t.nodeStatusUpdateMs / 1000);
  const cores = (msPerReq: number) => ((leasesPerSec + statusPerSec) * msPerReq) / 1000;
  return [
    `Every API call costs ${plain.cpuMsPerRequest.toFixed(1)} ms of CPU in the cluster process with client-node alone (client-node 1.x creates a new https.Agent per request, so each call opens a new TLS connection: CA parsing, handshake on both ends, certificate check), against ${shared.cpuMsPerRequest.toFixed(1)} ms with one shared keep-alive agent (${(plain.cpuMsPerRequest / shared.cpuMsPerRequest).toFixed(1)}x). The heartbeats alone (${leasesPerSec.toFixed(0)} Lease renewals/s + ${statusPerSec.toFixed(0)} node status posts/s) would need ${cores(plain.cpuMsPerRequest).toFixed(2)} cores with client-node alone and need ${cores(shared.cpuMsPerRequest).toFixed(2)} with the shared agent sim/ uses; the whole cluster has one JavaScript thread.`,
  ];
}

/** startEmbeddedCluster() creates the scenario's objects a few at a time, under the boot's load. */
function startupObservations(d: RunData): string[] {
  const m = d.marks;
  if (!m.startedAt || m.startedAt - m.startAt < 30_000) return [];
  const booting = d.logs.find((l) => l.msg.includes('nodes booting'));
  const created = d.logs.find((l) => l.msg.includes('workloads created'));
  const span =
    booting && created
      ? ` (${secs(created.at - booting.at)} between "${booting.msg}" and "${created.msg}")`
      : '';
  return [
    `startEmbeddedCluster() took ${secs(m.startedAt - m.startAt)} to return${span}: it creates the scenario's namespaces and workloads (16 requests at a time) while the nodes boot, so each create waits behind the boot's load.`,
  ];
}
