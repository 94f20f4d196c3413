// `npm run bench:incident`: what the incident tracker costs the leader. Every TRACK_EVERY_MS it
// observes the cluster as the incident view does (lib/incident/lifecycle.ts observe: the
// situation, the headline, the failed nodes) and decides its step (trackerStep, followStatus).
// Pure work over the server's memory, so measured directly on synthetic clusters at three scales —
// one zone down, its pods' workloads short — as the median of repeated calls, with the share of
// one core that cost takes at the tracker's period, and the ratio of the largest to the smallest
// scale (linear in pods is the expectation). bench/incident/RESULTS.md, folded into bench/RESULTS.md.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { NodeView, PodView } from '../../lib/console/protocol.js';
import type { WorkloadView } from '../../lib/console/views.js';
import { capacityOf } from '../../lib/incident/capacity.js';
import { observe, trackerStep } from '../../lib/incident/lifecycle.js';
import type { IncidentInput } from '../../lib/incident/types.js';
import { TRACK_EVERY_MS } from '../../server/incident/tracker.js';
import { benchResults, type Row } from '../report.js';

const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quick = process.argv.includes('--quick');
const SCALES = quick
  ? [
      { nodes: 50, pods: 1_500 },
      { nodes: 500, pods: 15_000 },
    ]
  : [
      { nodes: 50, pods: 1_500 },
      { nodes: 500, pods: 15_000 },
      { nodes: 5_000, pods: 150_000 },
    ];
const RUNS = quick ? 7 : 21;
const log = (m: string) => console.log(`[bench:incident] ${m}`);

/** Three zones; zone-a down (its nodes Unknown for a minute); 30 pods per node, in workloads of 3. */
function cluster(nodesN: number, podsN: number): IncidentInput {
  const now = Date.now();
  const nodes: NodeView[] = Array.from({ length: nodesN }, (_, k) => {
    const zone = ['zone-a', 'zone-b', 'zone-c'][k % 3];
    const down = zone === 'zone-a';
    return {
      name: `n${k}`,
      zone,
      rack: `${zone}-r${k % 10}`,
      ready: down ? 'Unknown' : 'Ready',
      readySince: now - 60_000,
      lastHeartbeat: down ? now - 60_000 : now - 1_000,
      unschedulable: false,
      taints: [],
      conditions: [],
      capacity: {},
      resourceVersion: '1',
    };
  });
  const pods: PodView[] = Array.from({ length: podsN }, (_, k) => ({
    uid: `u${k}`,
    namespace: `ns${k % 50}`,
    name: `w${Math.floor(k / 3)}-${k % 3}`,
    node: `n${k % nodesN}`,
    state: 'Ready',
    phase: 'Running',
    ready: true,
    claims: [],
    resourceVersion: '1',
  }));
  const workloads: WorkloadView[] = Array.from({ length: Math.floor(podsN / 3) }, (_, k) => ({
    kind: 'StatefulSet',
    namespace: `ns${(k * 3) % 50}`,
    name: `w${k}`,
    uid: `w${k}`,
    replicas: 3,
    readyReplicas: k % 3 === 0 ? 2 : 3,
  }));
  return {
    now,
    nodes,
    pods,
    workloads,
    protectors: [],
    fencing: { enabled: false, covered: new Set(), fences: [], held: [], upcoming: [] },
    volumes: [],
    watches: [{ kind: 'nodes', synced: true, lastEventAt: now }],
  };
}

/**
 * The same cluster as the incident view's capacity sees it: the pods' StatefulSets and requests,
 * each node's labels and allocatable (8 CPU, 32 GiB, 110 pods), no volume pinned.
 */
function withPlacement(input: IncidentInput): IncidentInput {
  return {
    ...input,
    pods: input.pods.map((p) => ({
      ...p,
      owner: { kind: 'StatefulSet', name: p.name.slice(0, p.name.lastIndexOf('-')) },
      requests: { milliCpu: 100, memory: 256 * 2 ** 20 },
    })),
    placement: {
      rooms: input.nodes.map((n) => ({
        name: n.name,
        labels: { 'topology.kubernetes.io/zone': n.zone, 'kubernetes.io/hostname': n.name },
        allocatable: { milliCpu: 8_000, memory: 32 * 2 ** 30, pods: 110 },
      })),
      pins: [],
    },
  };
}

function measureCapacity(input: IncidentInput): { ms: number; stuck: number } {
  const runs: number[] = [];
  let stuck = 0;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const c = capacityOf(input);
    runs.push(performance.now() - t0);
    stuck = (c?.replacements.length ?? 0) + (c?.more ?? 0);
  }
  return { ms: median(runs), stuck };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function measure(input: IncidentInput): { observeMs: number; stepMs: number } {
  const obs: number[] = [];
  const steps: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const o = observe(input);
    const t1 = performance.now();
    trackerStep(undefined, o, { quietMs: 60_000, taken: new Set() });
    steps.push(performance.now() - t1);
    obs.push(t1 - t0);
  }
  return { observeMs: median(obs), stepMs: median(steps) };
}

async function main() {
  const started = Date.now();
  const rows: Row[] = [];
  const per: number[] = [];
  for (const s of SCALES) {
    const input = cluster(s.nodes, s.pods);
    const m = measure(input);
    const cap = measureCapacity(withPlacement(input));
    const total = m.observeMs + m.stepMs;
    per.push(total);
    const label = `${s.nodes} nodes, ${s.pods} pods`;
    log(
      `${label}: observe ${m.observeMs.toFixed(2)} ms, step ${m.stepMs.toFixed(2)} ms, capacity ${cap.ms.toFixed(2)} ms (${cap.stuck} stuck pods)`,
    );
    rows.push(
      {
        section: label,
        metric: 'observe (situation, headline, failed nodes)',
        value: m.observeMs,
        unit: 'ms',
      },
      {
        section: label,
        metric: 'decide the step (declare: status of every node and workload)',
        value: m.stepMs,
        unit: 'ms',
      },
      {
        section: label,
        metric: `incident view's capacity: room per zone, where ${cap.stuck} stuck pods can start (lib/incident/capacity)`,
        value: cap.ms,
        unit: 'ms',
      },
      {
        section: label,
        metric: `share of one core at one look every ${TRACK_EVERY_MS / 1000} s`,
        value: (100 * total) / TRACK_EVERY_MS,
        unit: '%',
        // the leader does much else: the tracker must stay a small part of one core
        ...(s.pods >= 150_000 ? { target: { op: '<=' as const, value: 5 } } : {}),
      },
    );
  }
  rows.push({
    section: 'ratios',
    metric: `cost at ${SCALES.at(-1)!.pods} pods / at ${SCALES[0].pods} pods`,
    value: per.at(-1)! / Math.max(per[0], 0.001),
    unit: '×',
    note: `${SCALES.at(-1)!.pods / SCALES[0].pods}× the pods`,
  });
  const setup = [
    'Synthetic clusters: three zones, zone-a down (its nodes Ready=Unknown for a minute), 30 pods per node in StatefulSets of 3, a third of them 2/3 ready.',
    `Each figure is the median of ${RUNS} calls in this process (warm after the first), no I/O: the tracker's work per look, as it runs on the leader every ${TRACK_EVERY_MS / 1000} s (server/incident/tracker.ts). gather() itself reads the server's memory only (and, on the embedded cluster, the Volumes rows).`,
  ];
  const text = benchResults({
    title: 'Incident tracker benchmark',
    command: `npm run bench:incident${quick ? ' -- --quick' : ''}`,
    durationS: (Date.now() - started) / 1000,
    setup,
    rows,
  });
  if (!quick) await writeFile(RESULTS, `${text}\n`);
  console.log(text);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
