// The Incident object (deploy/crds/palisade.dev_incidents.yaml): its schema, checked again
// whenever Palisade reads one (a person with `kubectl edit` can write anything the CRD allows,
// and an older CRD allows less), and what the console shows of it. Pure; the browser imports the
// types and the words.
import { z } from 'zod';

export const INCIDENT_GROUP = 'palisade.dev';
export const INCIDENT_VERSION = 'v1alpha1';
export const INCIDENT_API_VERSION = `${INCIDENT_GROUP}/${INCIDENT_VERSION}`;
export const INCIDENT_PLURAL = 'incidents';
/** the tracker's name as the declarer, the resolver and the author of its updates */
export const TRACKER = 'palisade';
/** resolved incidents kept as objects (their history stays in the history store) */
export const KEEP_RESOLVED = 50;
export const MAX_UPDATES = 100;

export const SEVERITIES = ['SEV1', 'SEV2', 'SEV3'] as const;
export type IncidentSeverity = (typeof SEVERITIES)[number];

export const UPDATE_KINDS = ['Declared', 'Status', 'Severity', 'Commander', 'Resolved', 'Reopened'] as const;
export type UpdateKind = (typeof UPDATE_KINDS)[number];

const time = z.iso.datetime({ offset: true, error: 'must be an ISO time like 2026-01-02T03:04:05Z' });

export const incidentUpdate = z.object({
  at: time,
  by: z.string().min(1).max(253),
  kind: z.enum(UPDATE_KINDS),
  text: z.string().max(2000),
});
export type IncidentUpdate = z.infer<typeof incidentUpdate>;

export const incidentSpec = z.object({
  title: z.string().max(500),
  severity: z.enum(SEVERITIES),
  startedAt: time,
  declaredBy: z.string().min(1).max(253),
  commander: z.string().min(1).max(253).optional(),
  resolvedAt: time.optional(),
  resolvedBy: z.string().min(1).max(253).optional(),
  updates: z.array(incidentUpdate).max(MAX_UPDATES).optional(),
});
export type IncidentSpec = z.infer<typeof incidentSpec>;

export const nodeDown = z.object({
  name: z.string().min(1),
  zone: z.string().optional(),
  rack: z.string().optional(),
  downAt: time,
  upAt: time.optional(),
});
export type NodeDown = z.infer<typeof nodeDown>;

export const workloadDegraded = z.object({
  kind: z.string().min(1),
  namespace: z.string().min(1),
  name: z.string().min(1),
  desired: z.number().int().min(0),
  lowest: z.number().int().min(0),
  degradedAt: time,
  restoredAt: time.optional(),
});
export type WorkloadDegraded = z.infer<typeof workloadDegraded>;

export const incidentStatus = z.object({
  healthySince: time.optional(),
  nodes: z.array(nodeDown).max(1000).optional(),
  workloads: z.array(workloadDegraded).max(500).optional(),
});
export type IncidentStatus = z.infer<typeof incidentStatus>;

export const incidentObject = z.object({
  apiVersion: z.literal(INCIDENT_API_VERSION),
  kind: z.literal('Incident'),
  metadata: z.object({
    name: z.string().min(1),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    creationTimestamp: z.union([z.string(), z.date()]).optional(),
  }),
  spec: incidentSpec,
  status: incidentStatus.optional(),
});
export type IncidentObject = z.infer<typeof incidentObject>;

/** An ISO time to the second, as every time in an Incident is written: 2026-11-30T04:54:08Z */
export const isoSeconds = (ms: number) =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** inc-YYYYMMDD-HHMMSS (UTC) of the moment it began: one outage, one name, whoever declares it */
export function incidentName(startedAt: number): string {
  const iso = isoSeconds(startedAt);
  return `inc-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
}

export const isOpen = (i: { spec: { resolvedAt?: string } }) => !i.spec.resolvedAt;

/** The open incident: the newest unresolved one (there should be one at most). */
export function openIncident<T extends IncidentObject>(all: Iterable<T>): T | undefined {
  let open: T | undefined;
  for (const i of all)
    if (isOpen(i) && (!open || Date.parse(i.spec.startedAt) > Date.parse(open.spec.startedAt))) open = i;
  return open;
}

/** "4 min 11 s", "1 h 2 min", "38 s" */
export function durationWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** What the incident view shows of an Incident (times in ms, the viewer formats them). */
export interface IncidentCard {
  name: string;
  title: string;
  severity: IncidentSeverity;
  startedAt: number;
  declaredBy: string;
  commander?: string;
  resolvedAt?: number;
  resolvedBy?: string;
  /** until resolution, or until now while open */
  durationMs: number;
  /** healthy since (ms): an open incident a person must resolve */
  healthySince?: number;
  updates: IncidentUpdate[];
  nodes: NodeDown[];
  workloads: WorkloadDegraded[];
}

/** how long a resolved incident stays on the incident view: its recap is read after recovery */
export const SHOW_RESOLVED_MS = 60 * 60_000;

/** The open incident, else the latest one resolved within SHOW_RESOLVED_MS. */
export function incidentCard(all: readonly IncidentObject[], now: number): IncidentCard | undefined {
  const open = openIncident(all);
  const latest = [...all]
    .filter((i) => i.spec.resolvedAt && now - Date.parse(i.spec.resolvedAt) < SHOW_RESOLVED_MS)
    .sort((a, b) => Date.parse(b.spec.resolvedAt!) - Date.parse(a.spec.resolvedAt!))[0];
  const i = open ?? latest;
  if (!i) return undefined;
  const s = i.spec;
  const startedAt = Date.parse(s.startedAt);
  const resolvedAt = s.resolvedAt ? Date.parse(s.resolvedAt) : undefined;
  return {
    name: i.metadata.name,
    title: s.title,
    severity: s.severity,
    startedAt,
    declaredBy: s.declaredBy,
    ...(s.commander ? { commander: s.commander } : {}),
    ...(resolvedAt !== undefined ? { resolvedAt, resolvedBy: s.resolvedBy } : {}),
    durationMs: (resolvedAt ?? now) - startedAt,
    ...(i.status?.healthySince && !resolvedAt ? { healthySince: Date.parse(i.status.healthySince) } : {}),
    updates: s.updates ?? [],
    nodes: i.status?.nodes ?? [],
    workloads: i.status?.workloads ?? [],
  };
}
