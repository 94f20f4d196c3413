// Capacity per zone, and where each stuck workload's replacement can still start (issue 25, item
// 4). A commander deciding whether to fence a dark zone's nodes needs two answers the scheduler
// only gives after the fact: how much room the surviving nodes have, and whether the pods the
// fence releases can start anywhere at all — a StatefulSet pod whose volume lives in the dark zone
// cannot, fence or no fence. The check runs kube-scheduler's default filters that decide this
// (NodeUnschedulable, NodeAffinity, TaintToleration, VolumeBinding's node affinity,
// NodeResourcesFit) on the cache's facts; it does not score, and it ignores pod (anti-)affinity
// and topology spread constraints, which the text says. Pure.
import type { PodView } from '../console/protocol.js';
import type { NodeRoom, WorkloadView } from '../console/views.js';
import { type NodeInfo, nodeSelectorTermMatches } from '../kube/nodeSelector.js';
import { untoleratedTaint } from '../kube/tolerations.js';
import { failedNodes, isLive } from './nodes.js';
import { workloadOf } from './spread.js';
import type {
  Amount,
  Capacity,
  IncidentInput,
  PlacementInput,
  Replacement,
  UnfitCode,
  VolumePin,
  ZoneCapacity,
} from './types.js';

const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** replacements listed (nowhere-to-go first); the rest are counted */
export const MAX_REPLACEMENTS = 25;

type Used = { milliCpu: number; memory: number; pods: number };

function usedByNode(pods: PodView[]): Map<string, Used> {
  const used = new Map<string, Used>();
  for (const p of pods) {
    if (!p.node || !isLive(p)) continue;
    const u = used.get(p.node) ?? { milliCpu: 0, memory: 0, pods: 0 };
    u.milliCpu += p.requests?.milliCpu ?? 0;
    u.memory += p.requests?.memory ?? 0;
    u.pods += 1;
    used.set(p.node, u);
  }
  return used;
}

interface Candidate {
  room: NodeRoom;
  zone: string;
  taints: { key: string; value?: string; effect: string }[];
  free: { milliCpu?: number; memory?: number; pods?: number };
}

const minus = (total: number | undefined, used: number) => (total === undefined ? undefined : total - used);

function add(a: Amount | undefined, total: number | undefined, free: number | undefined): Amount | undefined {
  if (total === undefined || free === undefined) return a;
  return { total: (a?.total ?? 0) + total, free: (a?.free ?? 0) + Math.max(0, free) };
}

function zonesOf(i: IncidentInput, candidates: Candidate[]): ZoneCapacity[] {
  const byZone = new Map<string, ZoneCapacity>();
  for (const n of i.nodes) {
    const z = byZone.get(n.zone) ?? { zone: n.zone, nodes: 0, up: 0 };
    z.nodes++;
    byZone.set(n.zone, z);
  }
  for (const c of candidates) {
    const z = byZone.get(c.zone)!;
    const a = c.room.allocatable;
    z.up++;
    z.milliCpu = add(z.milliCpu, a.milliCpu, c.free.milliCpu);
    z.memory = add(z.memory, a.memory, c.free.memory);
    z.pods = add(z.pods, a.pods, c.free.pods);
  }
  return [...byZone.values()].sort((a, b) => a.zone.localeCompare(b.zone));
}

function selectorAdmits(p: PodView, node: NodeInfo): boolean {
  const sel = p.constraints?.nodeSelector ?? {};
  if (!Object.entries(sel).every(([k, v]) => node.labels[k] === v)) return false;
  const terms = p.constraints?.affinity;
  return !terms || terms.some((t) => nodeSelectorTermMatches(t, node));
}

function roomFor(p: PodView, c: Candidate): boolean {
  const r = p.requests ?? { milliCpu: 0, memory: 0 };
  const { milliCpu, memory, pods } = c.free;
  return (
    (pods === undefined || pods >= 1) &&
    (milliCpu === undefined || milliCpu >= r.milliCpu) &&
    (memory === undefined || memory >= r.memory)
  );
}

/** The first default filter the node fails for the pod, or undefined when it fits. */
function unfitOn(p: PodView, c: Candidate, pins: VolumePin[]): UnfitCode | undefined {
  const node = { name: c.room.name, labels: c.room.labels };
  if (!selectorAdmits(p, node)) return 'node-affinity';
  if (untoleratedTaint(c.taints, p.constraints?.tolerations)) return 'taint';
  if (pins.some((pin) => !pin.terms.some((t) => nodeSelectorTermMatches(t, node))))
    return 'volume-node-affinity';
  if (!roomFor(p, c)) return 'insufficient-resources';
  return undefined;
}

function pinsOf(p: PodView, pins: Map<string, VolumePin>): VolumePin[] {
  return p.claims.map((c) => pins.get(`${p.namespace}/${c}`)).filter((x): x is VolumePin => !!x);
}

/** The zones whose nodes (in any state) the pins admit: where the volume lives. */
function pinnedZones(pins: VolumePin[], rooms: NodeRoom[], zoneOf: Map<string, string>): string[] {
  const zones = new Set<string>();
  for (const r of rooms) {
    const node = { name: r.name, labels: r.labels };
    if (pins.every((pin) => pin.terms.some((t) => nodeSelectorTermMatches(t, node))))
      zones.add(zoneOf.get(r.name) ?? '');
  }
  return [...zones].sort();
}

/** What every stuck group shares: the candidates, the pins and zones by name, and the verdicts so far. */
interface Judging {
  candidates: Candidate[];
  pinBy: Map<string, VolumePin>;
  zoneOf: Map<string, string>;
  rooms: NodeRoom[];
  /** by the pod's requests, constraints and pins: a zone of thousands of alike pods is judged once */
  memo: Map<string, Omit<Replacement, 'workload' | 'stuck'>>;
}

function replacementOf(pods: PodView[], j: Judging): Omit<Replacement, 'workload' | 'stuck'> {
  // the largest request among the stuck pods: a node that takes that one takes any of them
  const pod = pods.reduce((a, b) => ((b.requests?.milliCpu ?? 0) > (a.requests?.milliCpu ?? 0) ? b : a));
  const pins = pinsOf(pod, j.pinBy);
  const key = JSON.stringify([pod.requests ?? null, pod.constraints ?? null, pins.map((p) => p.terms)]);
  const known = j.memo.get(key);
  if (known) return known;
  const fits = new Map<string, number>();
  const unfit: Partial<Record<UnfitCode, number>> = {};
  for (const c of j.candidates) {
    const code = unfitOn(pod, c, pins);
    if (code) unfit[code] = (unfit[code] ?? 0) + 1;
    else fits.set(c.zone, (fits.get(c.zone) ?? 0) + 1);
  }
  const judged = {
    ...(pod.requests ? { requests: pod.requests } : {}),
    fits: [...fits].map(([zone, nodes]) => ({ zone, nodes })).sort((a, b) => a.zone.localeCompare(b.zone)),
    unfit: fits.size ? {} : unfit,
    ...(pins.length ? { volumeZones: pinnedZones(pins, j.rooms, j.zoneOf) } : {}),
  };
  j.memo.set(key, judged);
  return judged;
}

type Stuck = { w: WorkloadView; pods: PodView[] };

/**
 * The failed nodes' live pods by what replaces them: each StatefulSet pod on its own (its
 * identity comes back with its own volume, which may live in another zone than its sibling's),
 * a Deployment's pods together (any node that takes one takes any).
 */
function stuckOf(i: IncidentInput, failed: Map<string, unknown>): Stuck[] {
  const byKey = new Map(i.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w]));
  const out: Stuck[] = [];
  const deployments = new Map<WorkloadView, Stuck>();
  for (const p of i.pods) {
    if (!p.node || !failed.has(p.node) || !isLive(p)) continue;
    const w = workloadOf(p, byKey);
    if (!w) continue;
    if (w.kind === 'StatefulSet') {
      out.push({ w, pods: [p] });
      continue;
    }
    const s = deployments.get(w);
    if (s) s.pods.push(p);
    else {
      const fresh = { w, pods: [p] };
      deployments.set(w, fresh);
      out.push(fresh);
    }
  }
  return out;
}

/** The up nodes a pod can start on now: Ready, schedulable, with what is left of each. */
function candidatesOf(i: IncidentInput, place: PlacementInput, failed: Map<string, unknown>): Candidate[] {
  const rooms = new Map(place.rooms.map((r) => [r.name, r]));
  const used = usedByNode(i.pods);
  const out: Candidate[] = [];
  for (const n of i.nodes) {
    const room = rooms.get(n.name);
    if (!room || failed.has(n.name) || n.ready !== 'Ready' || n.unschedulable) continue;
    const u = used.get(n.name) ?? { milliCpu: 0, memory: 0, pods: 0 };
    const a = room.allocatable;
    out.push({
      room,
      zone: n.zone,
      taints: n.taints,
      free: {
        milliCpu: minus(a.milliCpu, u.milliCpu),
        memory: minus(a.memory, u.memory),
        pods: minus(a.pods, u.pods),
      },
    });
  }
  return out;
}

export function capacityOf(i: IncidentInput): Capacity | undefined {
  const place = i.placement;
  if (!place) return undefined;
  const failed = failedNodes(i.nodes, i.now);
  const candidates = candidatesOf(i, place, failed);
  const judging: Judging = {
    candidates,
    pinBy: new Map(place.pins.map((p) => [`${p.claim.namespace}/${p.claim.name}`, p])),
    zoneOf: new Map(i.nodes.map((n) => [n.name, n.zone])),
    rooms: place.rooms,
    memo: new Map(),
  };
  // judged light (a zone of a 150,000-pod cluster has tens of thousands stuck), then only the
  // listed ones are spelled out; nowhere to go first: what the commander must know before fencing
  const all = stuckOf(i, failed).map((s) => ({
    s,
    first: s.pods.length === 1 ? s.pods[0]!.name : s.pods.map((p) => p.name).sort()[0]!,
    judged: replacementOf(s.pods, judging),
  }));
  all.sort(
    (a, b) =>
      a.judged.fits.length - b.judged.fits.length || order(a.s.w.name, b.s.w.name) || order(a.first, b.first),
  );
  const replacements = all.slice(0, MAX_REPLACEMENTS).map(({ s, judged }) => ({
    workload: { kind: s.w.kind, namespace: s.w.namespace, name: s.w.name },
    stuck: s.pods.map((p) => p.name).sort(),
    ...judged,
  }));
  return { zones: zonesOf(i, candidates), replacements, more: all.length - replacements.length };
}
