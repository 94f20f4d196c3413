// The incident's headline (issue 25): one sentence a commander reads first — which zones and
// racks are down, the workloads below their desired replicas by name ("orders-db 1/3"), the
// fences announced and when, and the fencing budget's margin ("1 more node loss and fencing
// stops"). Typed data here, the sentence in headlineText: the page formats clock times in the
// viewer's zone. Pure.
import { nodeDisplayState } from '../console/ui/states';
import { isFailed } from './nodes';
import type { Headline, IncidentInput, WorkloadShort, ZoneRollup } from './types.js';

export type { Headline, RackRollup, WorkloadShort, ZoneRollup } from './types.js';

const IN_PROGRESS = new Set(['Fencing', 'Fenced', 'Releasing']);

function zonesOf(i: IncidentInput): ZoneRollup[] {
  const zones = new Map<string, ZoneRollup>();
  for (const n of i.nodes) {
    const z = zones.get(n.zone) ?? { zone: n.zone, nodes: 0, down: 0, racks: [] };
    zones.set(n.zone, z);
    let r = z.racks.find((x) => x.rack === n.rack);
    if (!r) z.racks.push((r = { rack: n.rack, nodes: 0, down: 0 }));
    const down = isFailed(nodeDisplayState(n, i.now)) ? 1 : 0;
    z.nodes++;
    z.down += down;
    r.nodes++;
    r.down += down;
  }
  for (const z of zones.values()) z.racks.sort((a, b) => a.rack.localeCompare(b.rack));
  return [...zones.values()].sort((a, b) => a.zone.localeCompare(b.zone));
}

function workloadsOf(i: IncidentInput): WorkloadShort[] {
  return i.workloads
    .filter((w) => w.kind !== 'ReplicaSet' && w.readyReplicas < w.replicas)
    .map((w) => ({
      kind: w.kind,
      namespace: w.namespace,
      name: w.name,
      ready: w.readyReplicas,
      desired: w.replicas,
    }))
    .sort((a, b) => a.ready / a.desired - b.ready / b.desired || a.name.localeCompare(b.name));
}

function fencesOf(i: IncidentInput): Headline['fences'] {
  const f = i.fencing;
  const fenced = new Set(f.fences.filter((x) => x.phase === 'Detected').map((x) => x.node));
  const counting = [
    ...f.fences.filter((x) => x.phase === 'Detected' && !x.cancelRequestedBy && !pausedFor(i, x.policy)),
    ...f.upcoming.filter((u) => !u.paused && !fenced.has(u.node)),
  ];
  const times = counting.map((x) => x.fenceAt).filter((t): t is number => t !== undefined);
  return {
    announced: counting.length,
    ...(times.length ? { nextAt: Math.min(...times) } : {}),
    inProgress: f.fences.filter((x) => IN_PROGRESS.has(x.phase)).length,
    held: f.held.filter((h) => h.reason === 'budget' || h.reason === 'paused').length,
  };
}

const pausedFor = (i: IncidentInput, policy: string) =>
  i.fencing.budgets?.some((b) => b.policy === policy && b.paused) ?? false;

function budgetOf(i: IncidentInput): Headline['budget'] {
  const tightest = (i.fencing.budgets ?? [])
    .filter((b) => b.selected > 0)
    .map((b) => ({ ...b, margin: b.maxUnhealthy - b.unhealthy }))
    .sort((a, b) => a.margin - b.margin)[0];
  if (!tightest) return undefined;
  const { policy, margin, unhealthy, maxUnhealthy, selected } = tightest;
  return { policy, margin, unhealthy, maxUnhealthy, selected };
}

export function headlineOf(i: IncidentInput): Headline {
  return { zones: zonesOf(i), workloads: workloadsOf(i), fences: fencesOf(i), budget: budgetOf(i) };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "zone-a down: 4/4 nodes", "rack b1 down (zone-b)", "zone-c: 1/4 nodes down". */
function placesText(zones: readonly ZoneRollup[]): string[] {
  const out: string[] = [];
  for (const z of zones) {
    if (!z.down) continue;
    const name = z.zone || 'nodes without a zone';
    if (z.down === z.nodes) {
      out.push(`${name} down: ${z.down}/${z.nodes} nodes`);
      continue;
    }
    const racks = z.racks.filter((r) => r.rack && r.down === r.nodes);
    for (const r of racks) out.push(`rack ${r.rack} down (${name}, ${r.down}/${r.nodes} nodes)`);
    const rest = z.down - racks.reduce((s, r) => s + r.down, 0);
    if (rest) out.push(`${name}: ${rest}/${z.nodes} ${z.nodes === 1 ? 'node' : 'nodes'} down`);
  }
  return out;
}

function workloadsText(ws: readonly WorkloadShort[], max = 4): string | undefined {
  if (!ws.length) return undefined;
  const named = ws.slice(0, max).map((w) => `${w.name} ${w.ready}/${w.desired}`);
  return `${named.join(', ')}${ws.length > max ? ` and ${ws.length - max} more below desired` : ''}`;
}

function fencesText(f: Headline['fences'], clock: (ms: number) => string): string[] {
  const out: string[] = [];
  if (f.announced)
    out.push(
      `${plural(f.announced, 'fence')}${f.nextAt === undefined ? ' announced' : ` at ${clock(f.nextAt)}`}`,
    );
  if (f.inProgress) out.push(`${plural(f.inProgress, 'fence')} under way`);
  if (f.held) out.push(`${plural(f.held, 'fence')} held`);
  return out;
}

function budgetText(b: NonNullable<Headline['budget']>): string {
  if (b.margin < 0)
    return `fencing budget exceeded (${b.unhealthy} of ${b.selected} nodes unhealthy, at most ${b.maxUnhealthy}): fences are held`;
  if (b.margin === 0) return 'fencing budget 0 left: one more node loss and fencing stops';
  return `fencing budget ${b.margin} left`;
}

/**
 * The headline in words; "Nothing is broken" when nothing is down, no workload is short and no
 * fence is announced. The budget is said only when something is wrong (it is always there).
 */
export function headlineText(h: Headline, clock: (ms: number) => string): string {
  const parts = [...placesText(h.zones)];
  const w = workloadsText(h.workloads);
  if (w) parts.push(w);
  parts.push(...fencesText(h.fences, clock));
  if (!parts.length) return 'Nothing is broken';
  if (h.budget) parts.push(budgetText(h.budget));
  return parts.join('; ');
}
