'use client';
// The incident record (issue 25): the open Incident — or the last one, for an hour after it was
// resolved — with its severity, how long it has lasted, who declared it and who commands it, and
// its recap: each node down and each workload short, from when to when, and every status update.
// The tracker declares and resolves it (server/incident/tracker.ts); the times tick in the page.
import { formatClock } from '@/lib/console/ui/format';
import {
  lifecycleText,
  nodeRows,
  peopleText,
  quietText,
  type SpanRow,
  who,
  workloadRows,
} from '@/lib/incident/recap';
import { type IncidentCard, SEVERITIES } from '@/lib/incident/record';
import {
  DeclareIncidentButton,
  IncidentActionButton,
  SetSeverityButton,
} from '../actions/GuardedActionButtons';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { ExportButtons } from './ExportButtons';

const SEVERITY_TONE: Record<IncidentCard['severity'], string> = {
  SEV1: 'text-crit border-crit/70',
  SEV2: 'text-warn border-warn/70',
  SEV3: 'text-info border-info/70',
};

export function IncidentRecord({
  incident: c,
  cluster,
  readOnly,
}: {
  incident: IncidentCard;
  cluster: string;
  readOnly: boolean;
}) {
  const now = useNow();
  const me = useCluster().current?.user?.name;
  const resolved = c.resolvedAt !== undefined;
  const quiet = quietText(c, now, formatClock);
  const nodes = nodeRows(c, now);
  const workloads = workloadRows(c, now);
  return (
    <section
      aria-labelledby="incident-record-h"
      data-testid="incident-record"
      className="border-b border-line px-3 py-2"
    >
      <h2 id="incident-record-h" className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded border bg-panel px-1 text-xs font-semibold ${SEVERITY_TONE[c.severity]}`}>
          {c.severity}
        </span>
        <span className="font-semibold">{c.name}</span>
        <span data-testid="incident-lifecycle" className={resolved ? 'text-ok' : ''}>
          {lifecycleText(c, now, formatClock)}
        </span>
      </h2>
      <p className="text-sm">{c.title}</p>
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-xs text-dim" data-testid="incident-people">
          {peopleText(c)}
        </p>
        <ExportButtons cluster={cluster} incident={c.name} />
      </div>
      {!resolved && (
        <div className="mt-1 flex flex-wrap items-center gap-2" data-testid="incident-actions">
          {/* the commander has command: the button would only be refused */}
          {!(me && c.commander === me) && (
            <IncidentActionButton
              cluster={cluster}
              incident={c.name}
              action="takeIncidentCommand"
              disabled={readOnly}
            />
          )}
          <IncidentActionButton
            cluster={cluster}
            incident={c.name}
            action="postIncidentUpdate"
            disabled={readOnly}
          />
          <span className="text-xs text-dim">Severity:</span>
          {SEVERITIES.filter((s) => s !== c.severity).map((s) => (
            <SetSeverityButton key={s} cluster={cluster} incident={c.name} severity={s} disabled={readOnly} />
          ))}
          <IncidentActionButton
            cluster={cluster}
            incident={c.name}
            action="resolveIncident"
            disabled={readOnly}
          />
        </div>
      )}
      {quiet && (
        <p className="text-xs text-warn" data-testid="incident-quiet">
          {quiet}
        </p>
      )}
      <details open={resolved} className="mt-1 text-sm" data-testid="incident-recap">
        <summary className="cursor-pointer text-xs">
          Recap: {nodes.length} {nodes.length === 1 ? 'node' : 'nodes'} down, {workloads.length}{' '}
          {workloads.length === 1 ? 'workload' : 'workloads'} short, {c.updates.length}{' '}
          {c.updates.length === 1 ? 'update' : 'updates'}
        </summary>
        <Spans caption="Nodes down" rows={nodes} testId="recap-nodes" />
        <Spans caption="Workloads below their desired replicas" rows={workloads} testId="recap-workloads" />
        {c.updates.length > 0 && (
          <ol className="mt-1 flex flex-col gap-0.5 text-xs" aria-label="Status updates">
            {c.updates.map((u) => (
              <li key={`${u.at}-${u.kind}-${u.by}`}>
                <time dateTime={u.at}>{formatClock(Date.parse(u.at))}</time> {u.kind} · {who(u.by)}: {u.text}
              </li>
            ))}
          </ol>
        )}
      </details>
    </section>
  );
}

function Spans({ caption, rows, testId }: { caption: string; rows: SpanRow[]; testId: string }) {
  if (!rows.length) return null;
  return (
    <table className="mt-1 text-xs" data-testid={testId}>
      <caption className="text-left font-semibold">{caption}</caption>
      <thead>
        <tr className="text-left text-dim">
          <th className="pr-3 font-normal">What</th>
          <th className="pr-3 font-normal">Where</th>
          <th className="pr-3 font-normal">From</th>
          <th className="pr-3 font-normal">To</th>
          <th className="font-normal">For</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.what}-${r.from}`}>
            <td className="whitespace-nowrap pr-3">{r.what}</td>
            <td className="pr-3">{r.where ?? ''}</td>
            <td className="pr-3">{formatClock(r.from)}</td>
            <td className="pr-3">{r.to === undefined ? 'still' : formatClock(r.to)}</td>
            <td>{r.lasted}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Declare an incident by hand (issue 25, item 3): when none is open — a customer-facing problem
 * the tracker cannot see (it declares one when a node goes down). The person commands it.
 */
export function DeclareIncident({ cluster, readOnly }: { cluster: string; readOnly: boolean }) {
  return (
    <section
      aria-label="Declare an incident"
      data-testid="incident-declare"
      className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm"
    >
      <span className="text-dim">No incident is open. Declare one, commanded by you:</span>
      {SEVERITIES.map((s) => (
        <DeclareIncidentButton key={s} cluster={cluster} severity={s} disabled={readOnly} />
      ))}
    </section>
  );
}
