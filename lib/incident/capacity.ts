// Capacity per zone, and where each stuck workload's replacement can still start (issue 25, item
// 4). A commander deciding whether to fence a dark zone's nodes needs two answers the scheduler
// only gives after the fact: how much room the surviving nodes have, and whether the pods the
// fence releases can start anywhere at all — a StatefulSet pod whose volume lives in the dark zone
// cannot, fence or no fence. The check runs kube-scheduler's default filters that decide this
// (NodeUnschedulable, NodeAffinity, TaintToleration, VolumeBinding's node affinity,
// NodeResourcesFit) on the cache's facts; it does not score, and it ignores pod (anti-)affinity
// and topology spread constraints, which the text says. Pure.
import type { PodView } from '../console/protocol.js';
import type { NodeRoom } from '../console/views.js';
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

export type {
  Capacity,
  PlacementInput,
  Replacement,
  UnfitCode,
  VolumePin,
  ZoneCapacity,
} from './types.js';

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

function replacementOf(pods: PodView[], candidates: Candidate[], i: IncidentInput, place: PlacementInput) {
  const pinBy = new Map(place.pins.map((p) => [`${p.claim.namespace}/${p.claim.name}`, p]));
  // the largest request among the stuck pods: a node that takes that one takes any of them
  const pod = pods.reduce((a, b) => ((b.requests?.milliCpu ?? 0) > (a.requests?.milliCpu ?? 0) ? b : a));
  const pins = pinsOf(pod, pinBy);
  const fits = new Map<string, number>();
  const unfit: Partial<Record<UnfitCode, number>> = {};
  for (const c of candidates) {
    const code = unfitOn(pod, c, pins);
    if (code) unfit[code] = (unfit[code] ?? 0) + 1;
    else fits.set(c.zone, (fits.get(c.zone) ?? 0) + 1);
  }
  const zoneOf = new Map(i.nodes.map((n) => [n.name, n.zone]));
  return {
    ...(pod.requests ? { requests: pod.requests } : {}),
    fits: [...fits].map(([zone, nodes]) => ({ zone, nodes })).sort((a, b) => a.zone.localeCompare(b.zone)),
    unfit: fits.size ? {} : unfit,
    ...(pins.length ? { volumeZones: pinnedZones(pins, place.rooms, zoneOf) } : {}),
  };
}

type Stuck = { w: Replacement['workload']; pods: PodView[] };

/**
 * The failed nodes' live pods by what replaces them: each StatefulSet pod on its own (its
 * identity comes back with its own volume, which may live in another zone than its sibling's),
 * a Deployment's pods together (any node that takes one takes any).
 */
function stuckOf(i: IncidentInput, failed: Map<string, unknown>): Stuck[] {
  const byKey = new Map(i.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w]));
  const stuck = new Map<string, Stuck>();
  for (const p of i.pods) {
    if (!p.node || !failed.has(p.node) || !isLive(p)) continue;
    const w = workloadOf(p, byKey);
    if (!w) continue;
    const key = `${w.kind}/${w.namespace}/${w.name}${w.kind === 'StatefulSet' ? `/${p.name}` : ''}`;
    const s = stuck.get(key) ?? { w: { kind: w.kind, namespace: w.namespace, name: w.name }, pods: [] };
    s.pods.push(p);
    stuck.set(key, s);
  }
  return [...stuck.values()];
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
  const replacements = stuckOf(i, failed)
    .map(({ w, pods }) => ({
      workload: w,
      stuck: pods.map((p) => p.name).sort(),
      ...replacementOf(pods, candidates, i, place),
    }))
    // nowhere to go first: that is what the commander must know before fencing
    .sort(
      (a, b) =>
        a.fits.length - b.fits.length ||
        a.workload.name.localeCompare(b.workload.name) ||
        a.stuck[0]!.localeCompare(b.stuck[0]!),
    );
  return { zones: zonesOf(i, candidates), replacements };
}
