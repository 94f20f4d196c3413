'use client';
// The incident timeline: node conditions, faults, fence steps (with what each released),
// admission denials, guarded actions, workload changes and Warning Events, merged from the
// history store; the URL is the shareable link (an absolute window and the filters), and the
// replay shows the map's nodes at a chosen time T. Live: refetched when the server records entries.
import { useQuery } from '@tanstack/react-query';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { decodeTimelineLink, encodeTimelineLink, type TimelineView } from '@/lib/history/link';
import { useCluster } from '../console/cluster';
import { useHistoryLive } from './live';
import { useTRPC } from '../console/trpc';
import { IncidentPicker, useIncidents } from './IncidentPicker';
import { Lanes } from './Lanes';
import { ReplayGrid } from './ReplayGrid';
import { TimelineFilters } from './TimelineFilters';
import { TimelineTable } from './TimelineTable';

const BUTTON = 'rounded border border-line bg-panel-2 px-2 py-0.5 text-xs';

export function TimelinePage() {
  const params = useSearchParams();
  const router = useRouter();
  const path = usePathname();
  const { cluster: selected } = useCluster();
  // a link without a window opens on the hour before it was opened: taken once mounted, as the
  // server's render and the browser's would name two different hours (React error #418)
  const [openedAt, setOpenedAt] = useState<number | undefined>(undefined);
  useEffect(() => setOpenedAt(Date.now()), []);
  const decoded = useMemo(
    () =>
      openedAt === undefined
        ? undefined
        : decodeTimelineLink(new URLSearchParams(params.toString()), openedAt),
    [params, openedAt],
  );
  if (!decoded)
    return (
      <div className="p-3 text-sm">
        <h1 className="text-base font-semibold">Timeline</h1>
        <p className="text-dim">Loading…</p>
      </div>
    );
  if (!decoded.ok)
    return (
      <div className="p-3 text-sm">
        <h1 className="text-base font-semibold">Timeline</h1>
        <p className="text-crit" role="alert">
          This link is not valid: {decoded.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}
        </p>
        <a className="underline" href={path}>
          Open the last hour
        </a>
      </div>
    );
  const view = { ...decoded.view, cluster: decoded.view.cluster ?? selected };
  const go = (v: TimelineView) => router.replace(encodeTimelineLink(v));
  return <Timeline view={view} onChange={go} />;
}

function Timeline({ view, onChange }: { view: TimelineView; onChange: (v: TimelineView) => void }) {
  const trpc = useTRPC();
  const cluster = view.cluster ?? '';
  const link = encodeTimelineLink(view);
  const timeline = useQuery({
    ...trpc.history.timeline.queryOptions({
      cluster,
      from: view.from,
      to: view.to,
      ...(view.kinds.length ? { kinds: view.kinds } : {}),
      ...(view.q.trim() ? { q: view.q.trim() } : {}),
    }),
    enabled: !!cluster,
    staleTime: 0,
  });
  // the server says when entries were recorded: a window that reaches now fills in as things happen
  useHistoryLive(cluster);
  const incidents = useIncidents(cluster);
  const incident = incidents.data?.find((i) => i.name === view.incident);
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <h1 className="mr-2 text-base font-semibold">Timeline</h1>
        <span className="text-xs text-dim">
          {view.from} — {view.to} on {cluster || '(no cluster)'}
        </span>
        <CopyLink link={link} />
      </div>
      <TimelineFilters key={link} view={view} onApply={onChange} />
      <IncidentPicker
        cluster={cluster}
        view={view}
        onChange={onChange}
        incidents={incidents}
        incident={incident}
      />
      {timeline.isError && <p className="text-crit">Cannot read the timeline: {timeline.error.message}</p>}
      {/* lanes for an incident's own window: an arbitrary hour is mostly boot and quiet */}
      {incident && (
        <Lanes
          entries={timeline.data?.entries ?? []}
          from={view.from}
          to={view.to}
          updates={incident.updates}
          at={view.at}
          onScrub={(at) => onChange({ ...view, at })}
        />
      )}
      <Replay cluster={cluster} view={view} onChange={onChange} />
      <div className="min-h-0 flex-1 overflow-auto rounded border border-line">
        <TimelineTable
          entries={timeline.data?.entries ?? []}
          empty={timeline.isPending ? 'loading…' : 'nothing recorded in this window with these filters'}
        />
      </div>
    </div>
  );
}

function CopyLink({ link }: { link: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    const url = `${window.location.origin}${link}`;
    try {
      await navigator.clipboard.writeText(url);
      setSaid('Link copied');
    } catch {
      setSaid('Copy the address of the link instead');
    }
  };
  return (
    <span className="ml-auto flex items-center gap-2 text-xs">
      <a href={link} data-testid="timeline-link" className="underline">
        Shareable link
      </a>
      <button type="button" className={BUTTON} onClick={() => void copy()}>
        Copy link
      </button>
      <span role="status">{said}</span>
    </span>
  );
}

function Replay({
  cluster,
  view,
  onChange,
}: {
  cluster: string;
  view: TimelineView;
  onChange: (v: TimelineView) => void;
}) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState(view.at ?? view.to);
  // the lanes' scrubber moves `at`: the typed field follows it
  useEffect(() => setDraft(view.at ?? view.to), [view.at, view.to]);
  const replay = useQuery({
    ...trpc.history.replay.queryOptions({ cluster, at: view.at ?? '' }),
    enabled: !!cluster && !!view.at,
  });
  return (
    <section aria-label="Replay" className="flex flex-col gap-1.5 rounded border border-line p-2 text-xs">
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const ms = Date.parse(draft);
          if (!Number.isNaN(ms)) onChange({ ...view, at: new Date(ms).toISOString() });
        }}
      >
        <h2 className="font-semibold">Replay</h2>
        <label className="flex items-center gap-1">
          Nodes at (UTC)
          <input
            aria-label="Replay time"
            className="w-56 rounded border border-line bg-panel-2 px-1.5 py-0.5 font-mono"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
        </label>
        <button type="submit" className={BUTTON}>
          Show
        </button>
        {view.at && (
          <button type="button" className={BUTTON} onClick={() => onChange({ ...view, at: undefined })}>
            Close replay
          </button>
        )}
      </form>
      {replay.isError && <p className="text-crit">Cannot replay: {replay.error.message}</p>}
      {replay.data && <ReplayGrid replay={replay.data} />}
    </section>
  );
}
