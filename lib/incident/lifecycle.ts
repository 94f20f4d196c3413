// The incident tracker's rules (issue 25): when the cluster counts as unhealthy, how severe it is,
// what an open incident's status follows (each node down, each workload short of its replicas,
// from when to when), and the one step to take now — declare, update the status, resolve, or
// nothing. Typed data; server/incident/tracker.ts writes what these rules return. Pure.
import { headlineOf, headlineText } from './headline';
import { failedNodes } from './nodes';
import { situationOf } from './situation';
import {
  durationWords,
  type IncidentObject,
  type IncidentSeverity,
  type IncidentSpec,
  type IncidentStatus,
  incidentName,
  isoSeconds,
  MAX_UPDATES,
  type NodeDown,
  TRACKER,
  type WorkloadDegraded,
} from './record';
import type { IncidentInput } from './types.js';

/** why the cluster counts as unhealthy (the codes the declaration's update names) */
export type UnhealthyReason =
  | 'node-down'
  | 'fence-announced'
  | 'fence-under-way'
  | 'fence-awaiting-approval'
  | 'fence-held'
  | 'volume-split-brain-risk';

export interface Observation {
  now: number;
  /** empty when the cluster is healthy */
  reasons: UnhealthyReason[];
  /** when it turned unhealthy: the earliest failed node's Ready change, else now */
  onset: number;
  title: string;
  severity: IncidentSeverity;
  nodesDown: { name: string; zone: string; rack: string; since?: number }[];
  workloadsBelow: { kind: string; namespace: string; name: string; ready: number; desired: number }[];
}

const utcClock = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

function reasonsOf(i: IncidentInput, nodesDown: number): UnhealthyReason[] {
  const s = situationOf(i);
  const out: UnhealthyReason[] = [];
  if (nodesDown) out.push('node-down');
  if (s.fencesPending) out.push('fence-announced');
  if (s.fencesInProgress) out.push('fence-under-way');
  if (s.fencesAwaitingApproval) out.push('fence-awaiting-approval');
  if (s.fencesHeldByBudget) out.push('fence-held');
  if (s.volumesSplitBrainRisk) out.push('volume-split-brain-risk');
  return out;
}

/**
 * SEV1: a workload has no ready replica, a whole zone is down, or a volume risks split brain;
 * SEV2: a workload is short of replicas; SEV3: nothing users notice yet.
 */
export function severityOf(
  o: Pick<Observation, 'workloadsBelow' | 'reasons'>,
  zoneDown: boolean,
): IncidentSeverity {
  if (
    zoneDown ||
    o.reasons.includes('volume-split-brain-risk') ||
    o.workloadsBelow.some((w) => w.ready === 0)
  )
    return 'SEV1';
  return o.workloadsBelow.length ? 'SEV2' : 'SEV3';
}

export function observe(i: IncidentInput): Observation {
  const failed = failedNodes(i.nodes, i.now);
  const nodesDown = i.nodes
    .filter((n) => failed.has(n.name))
    .map((n) => ({
      name: n.name,
      zone: n.zone,
      rack: n.rack,
      ...(n.readySince ? { since: n.readySince } : {}),
    }));
  const reasons = reasonsOf(i, nodesDown.length);
  const headline = headlineOf(i);
  const workloadsBelow = headline.workloads.map(({ kind, namespace, name, ready, desired }) => ({
    kind,
    namespace,
    name,
    ready,
    desired,
  }));
  // nodes without a zone label are not a zone: one of them down is not a zone outage
  const zoneDown = headline.zones.some((z) => z.zone && z.nodes > 0 && z.down === z.nodes);
  const since = nodesDown.map((n) => n.since).filter((t): t is number => t !== undefined && t <= i.now);
  return {
    now: i.now,
    reasons,
    onset: since.length ? Math.min(...since) : i.now,
    title: headlineText(headline, utcClock),
    severity: severityOf({ workloadsBelow, reasons }, zoneDown),
    nodesDown,
    workloadsBelow,
  };
}

const REASON_WORDS: Record<UnhealthyReason, string> = {
  'node-down': 'a node is down',
  'fence-announced': 'a fence is announced',
  'fence-under-way': 'a fence is under way',
  'fence-awaiting-approval': 'a fence awaits approval',
  'fence-held': 'a fence is held by the budget',
  'volume-split-brain-risk': 'a volume risks split brain',
};

/**
 * The CRD's caps. The first ones are kept: cutting the oldest would drop spans that the next look
 * adds again, rewriting the status every few seconds for as long as the outage is that large.
 */
const MAX_NODES = 1000;
const MAX_WORKLOADS = 500;

/** Each node down and each workload short, opened and closed as the observations go. */
export function followStatus(before: IncidentStatus | undefined, o: Observation): IncidentStatus {
  const now = isoSeconds(o.now);
  const nodes: NodeDown[] = (before?.nodes ?? []).map((n) => ({ ...n }));
  const down = new Map(o.nodesDown.map((n) => [n.name, n]));
  for (const n of nodes) if (!n.upAt && !down.has(n.name)) n.upAt = now;
  // maps of the open spans: one pass, not a search per node (5000 nodes, 50000 workloads)
  const stillDown = new Set(nodes.filter((n) => !n.upAt).map((n) => n.name));
  for (const d of o.nodesDown) {
    if (stillDown.has(d.name)) continue;
    const at = d.since !== undefined && d.since <= o.now ? isoSeconds(d.since) : now;
    nodes.push({
      name: d.name,
      ...(d.zone ? { zone: d.zone } : {}),
      ...(d.rack ? { rack: d.rack } : {}),
      downAt: at,
    });
  }
  const workloads: WorkloadDegraded[] = (before?.workloads ?? []).map((w) => ({ ...w }));
  const key = (w: { kind: string; namespace: string; name: string }) => `${w.kind}/${w.namespace}/${w.name}`;
  const short = new Map(o.workloadsBelow.map((w) => [key(w), w]));
  for (const w of workloads) if (!w.restoredAt && !short.has(key(w))) w.restoredAt = now;
  const stillShort = new Map(workloads.filter((w) => !w.restoredAt).map((w) => [key(w), w]));
  for (const s of o.workloadsBelow) {
    const open = stillShort.get(key(s));
    if (open) {
      open.lowest = Math.min(open.lowest, s.ready);
      open.desired = s.desired;
    } else
      workloads.push({
        kind: s.kind,
        namespace: s.namespace,
        name: s.name,
        desired: s.desired,
        lowest: s.ready,
        degradedAt: now,
      });
  }
  const healthy = o.reasons.length === 0;
  return {
    ...(healthy ? { healthySince: before?.healthySince ?? now } : {}),
    ...(nodes.length ? { nodes: nodes.slice(0, MAX_NODES) } : {}),
    ...(workloads.length ? { workloads: workloads.slice(0, MAX_WORKLOADS) } : {}),
  };
}

export type TrackerStep =
  | { kind: 'none' }
  | { kind: 'declare'; name: string; spec: IncidentSpec; status: IncidentStatus }
  | { kind: 'status'; status: IncidentStatus }
  | { kind: 'escalate'; spec: IncidentSpec; status: IncidentStatus }
  | { kind: 'resolve'; spec: IncidentSpec; status: IncidentStatus };

export interface TrackerOptions {
  /** how long the cluster stays healthy before the tracker resolves an incident nobody commands */
  quietMs: number;
  /** names already taken (resolved incidents): a new one is not declared under them */
  taken: ReadonlySet<string>;
}

const RANK: Record<IncidentSeverity, number> = { SEV1: 1, SEV2: 2, SEV3: 3 };

function declare(o: Observation, taken: ReadonlySet<string>): TrackerStep {
  // a name taken by a resolved incident (the same node down again within its second): from now
  const name = [incidentName(o.onset), incidentName(o.now)].find((n) => !taken.has(n));
  if (!name) return { kind: 'none' };
  const startedAt = taken.has(incidentName(o.onset)) ? o.now : o.onset;
  const why = o.reasons.map((r) => REASON_WORDS[r]).join(', ');
  return {
    kind: 'declare',
    name,
    spec: {
      title: o.title,
      severity: o.severity,
      startedAt: isoSeconds(startedAt),
      declaredBy: TRACKER,
      updates: [{ at: isoSeconds(o.now), by: TRACKER, kind: 'Declared', text: why }],
    },
    status: followStatus(undefined, o),
  };
}

const withUpdate = (spec: IncidentSpec, u: NonNullable<IncidentSpec['updates']>[number]): IncidentSpec => ({
  ...spec,
  updates: [...(spec.updates ?? []), u].slice(-MAX_UPDATES),
});

/** A severity a person set stands; the tracker only raises its own. */
function escalated(open: IncidentObject, o: Observation): IncidentSpec | undefined {
  const spec = open.spec;
  if (RANK[o.severity] >= RANK[spec.severity]) return undefined;
  if (spec.updates?.some((u) => u.kind === 'Severity' && u.by !== TRACKER)) return undefined;
  return withUpdate(
    { ...spec, severity: o.severity },
    {
      at: isoSeconds(o.now),
      by: TRACKER,
      kind: 'Severity',
      text: `${spec.severity} → ${o.severity}: ${o.title}`,
    },
  );
}

/** The one step to take now for the cluster's open incident (or the lack of one). */
export function trackerStep(
  open: IncidentObject | undefined,
  o: Observation,
  opts: TrackerOptions,
): TrackerStep {
  if (!open) return o.reasons.length ? declare(o, opts.taken) : { kind: 'none' };
  const status = followStatus(open.status, o);
  const quiet = status.healthySince ? o.now - Date.parse(status.healthySince) : 0;
  // an incident a person commands or declared is theirs to resolve: the view says it is quiet
  const own = open.spec.declaredBy === TRACKER && !open.spec.commander;
  if (own && status.healthySince && quiet >= opts.quietMs)
    return {
      kind: 'resolve',
      spec: withUpdate(
        { ...open.spec, resolvedAt: isoSeconds(o.now), resolvedBy: TRACKER },
        {
          at: isoSeconds(o.now),
          by: TRACKER,
          kind: 'Resolved',
          text: `healthy for ${durationWords(quiet)}`,
        },
      ),
      status,
    };
  const spec = escalated(open, o);
  if (spec) return { kind: 'escalate', spec, status };
  return JSON.stringify(status) === JSON.stringify(open.status ?? {})
    ? { kind: 'none' }
    : { kind: 'status', status };
}
