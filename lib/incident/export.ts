// An incident's export for the postmortem (issue 25): the Incident record and every history entry
// from a minute before it began to its resolution (or now), oldest first — faults whoever injected
// them, node conditions, fence steps with the facts each decision was taken on (their details),
// people's guarded actions, workload replicas, Warning Events — as JSON (everything, as stored)
// and Markdown (one line per entry, then the recap). Pure.
import type { HistoryEntry } from '../history/types';
import { durationWords, type IncidentObject, TRACKER } from './record';

/** entries this long before the start are part of the story (the fault that began it) */
export const LEAD_MS = 60_000;

export interface IncidentExport {
  format: 'palisade.dev/incident-export/v1';
  cluster: string;
  exportedAt: string;
  incident: { name: string; spec: IncidentObject['spec']; status: NonNullable<IncidentObject['status']> };
  /** oldest first */
  timeline: HistoryEntry[];
  /** the history store held more entries in the window than were exported */
  truncated: boolean;
}

export function exportWindow(i: IncidentObject, now: number): { from: string; to: string } {
  const start = Date.parse(i.spec.startedAt) - LEAD_MS;
  const end = i.spec.resolvedAt ? Date.parse(i.spec.resolvedAt) + 5_000 : now;
  return { from: new Date(start).toISOString(), to: new Date(Math.max(start, end)).toISOString() };
}

export function incidentExport(
  cluster: string,
  i: IncidentObject,
  entries: readonly HistoryEntry[],
  now: number,
  truncated = false,
): IncidentExport {
  const timeline = [...entries].sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
  return {
    format: 'palisade.dev/incident-export/v1',
    cluster,
    exportedAt: new Date(now).toISOString(),
    incident: { name: i.metadata.name, spec: i.spec, status: i.status ?? {} },
    timeline,
    truncated,
  };
}

const who = (name: string) => (name === TRACKER ? 'Palisade' : name);
const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');
const subjectOf = (e: HistoryEntry) =>
  `${e.subject.kind} ${e.subject.namespace ? `${e.subject.namespace}/` : ''}${e.subject.name}`;

export function exportMarkdown(x: IncidentExport): string {
  const s = x.incident.spec;
  const start = Date.parse(s.startedAt);
  const end = s.resolvedAt ? Date.parse(s.resolvedAt) : Date.parse(x.exportedAt);
  const lines = [
    `# ${x.incident.name}: ${s.title}`,
    '',
    `- Cluster: ${x.cluster}`,
    `- Severity: ${s.severity}`,
    `- Started: ${s.startedAt}`,
    s.resolvedAt
      ? `- Resolved: ${s.resolvedAt}${s.resolvedBy ? ` by ${who(s.resolvedBy)}` : ''} (lasted ${durationWords(end - start)})`
      : `- Still open at ${x.exportedAt} (${durationWords(end - start)} so far)`,
    `- Declared by: ${who(s.declaredBy)}`,
    `- Commander: ${s.commander ?? 'none'}`,
    '',
    '## Nodes down',
    '',
    ...((x.incident.status.nodes ?? []).length
      ? (x.incident.status.nodes ?? []).map(
          (n) =>
            `- ${n.name}${n.zone ? ` (${n.zone}${n.rack ? `, rack ${n.rack}` : ''})` : ''}: ${n.downAt} → ${n.upAt ?? 'still down'}`,
        )
      : ['- none']),
    '',
    '## Workloads below their desired replicas',
    '',
    ...((x.incident.status.workloads ?? []).length
      ? (x.incident.status.workloads ?? []).map(
          (w) =>
            `- ${w.kind} ${w.namespace}/${w.name}: lowest ${w.lowest}/${w.desired} ready, ${w.degradedAt} → ${w.restoredAt ?? 'still short'}`,
        )
      : ['- none']),
    '',
    '## Status updates',
    '',
    ...((s.updates ?? []).length
      ? (s.updates ?? []).map((u) => `- ${u.at} ${u.kind} by ${who(u.by)}: ${u.text}`)
      : ['- none']),
    '',
    `## Timeline (${x.timeline.length} entries, oldest first${x.truncated ? '; truncated: the JSON export holds the same entries' : ''})`,
    '',
    '| Time (UTC) | Kind | Subject | Who | Reason | What |',
    '| --- | --- | --- | --- | --- | --- |',
    ...x.timeline.map(
      (e) =>
        `| ${e.at} | ${e.kind} | ${cell(subjectOf(e))} | ${cell(e.actor ? who(e.actor) : '')} | ${cell(e.reason)} | ${cell(e.message)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
