'use client';
// The timeline grouped by incident (issue 25, item 6): pick one of the cluster's incidents and the
// window becomes its own (a minute before it began to its resolution), its lanes show its notes,
// and a person adds a note — during the incident or after it, for the postmortem — through the
// guarded seam (postIncidentUpdate: recorded with their name in the incident and an Event).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { formatClock } from '@/lib/console/ui/format';
import type { TimelineView } from '@/lib/history/link';
import type { IncidentApi } from '@/server/trpc/incident';
import { IncidentActionButton } from '../actions/GuardedActionButtons';
import { useCluster } from '../console/cluster';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

type Incidents = inferRouterOutputs<IncidentApi>['incident']['list'];

/** The cluster's incidents, newest first; live from the incident topic (a note, a resolution). */
export function useIncidents(cluster: string) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useLive('incident', cluster, (_keys, o) =>
    qc.invalidateQueries({ queryKey: trpc.incident.list.queryKey({ cluster }) }, o),
  );
  return useQuery({ ...trpc.incident.list.queryOptions({ cluster }), enabled: !!cluster, retry: false });
}

export function IncidentPicker(p: {
  cluster: string;
  view: TimelineView;
  onChange: (v: TimelineView) => void;
  /** the page's useIncidents (one query and one live subscription for the page) */
  incidents: ReturnType<typeof useIncidents>;
  incident?: Incidents[number];
}) {
  const { incidents } = p;
  const { current } = useCluster();
  if (incidents.isError) return <p className="text-xs text-dim">Incidents: {incidents.error.message}</p>;
  const list = incidents.data ?? [];
  const pick = (name: string) => {
    const i = list.find((x) => x.name === name);
    if (!i) return p.onChange({ ...p.view, incident: undefined });
    p.onChange({ ...p.view, ...i.window, incident: i.name, at: undefined });
  };
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="timeline-incident">
      <label className="flex items-center gap-1">
        Incident
        <select
          aria-label="Incident"
          className="rounded border border-line bg-panel-2 px-1.5 py-0.5"
          value={p.view.incident ?? ''}
          onChange={(e) => pick(e.target.value)}
        >
          <option value="">— none: the window above —</option>
          {list.map((i) => (
            <option key={i.name} value={i.name}>
              {i.name} {i.severity}: {i.title}
              {i.resolvedAt ? ' (resolved)' : ' (open)'}
            </option>
          ))}
        </select>
      </label>
      {p.view.incident && !p.incident && incidents.data && (
        <span className="text-warn">incident {p.view.incident} is not among this cluster's incidents</span>
      )}
      {p.incident && (
        <>
          <span className="text-dim">
            {formatClock(Date.parse(p.incident.startedAt))}
            {p.incident.resolvedAt ? ` – ${formatClock(Date.parse(p.incident.resolvedAt))}` : ' – open'} ·{' '}
            {p.incident.updates.length} update{p.incident.updates.length === 1 ? '' : 's'}
          </span>
          <IncidentActionButton
            cluster={p.cluster}
            incident={p.incident.name}
            action="postIncidentUpdate"
            words={['Add note…', `Add a note to incident ${p.incident.name}'s record, with your name`]}
            disabled={current?.mode === 'read-only'}
          />
        </>
      )}
    </div>
  );
}
