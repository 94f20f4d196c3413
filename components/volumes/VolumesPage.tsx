'use client';
// The Volumes page: every PersistentVolume with where it is attached, who uses it, who waits
// for it and for how long, the force-detach countdown and, on the embedded cluster, which
// nodes really write to it. The banner says first what an incident commander must not miss:
// volumes held by suspect nodes while pods wait for them.
import { useDetachHandler } from '../actions/hooks';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { durationWords } from '@/lib/guard/waitWords';
import type { Risk } from '@/lib/volumes/rwoTypes';
import { useCluster } from '../console/cluster';
import { FilterChips, SearchBox } from '../lists/controls';
import { CLOSE_EVENT } from '../shell/Shell';
import { useVolumesTRPC, type VolumeList, type VolumeRow } from './api';
import { RISK_DOT, RISK_LABEL, RISKS } from './badges';
import type { DetachHandler } from './cells';
import { useVolumesLive, type VolumesLiveState } from './live';
import { VolumeDetail } from './VolumeDetail';
import { VolumesTable } from './VolumesTable';
import { fenceNotesByNode } from './fence';

/** Only when the server has no volumes feed: how often to re-read instead. */
const FALLBACK_REFETCH_MS = 5_000;

const searchText = (r: VolumeRow) =>
  [
    r.pv,
    r.claim && `${r.claim.namespace}/${r.claim.name}`,
    r.risk,
    ...r.attachments.map((a) => a.node),
    ...r.users.map((u) => `${u.namespace}/${u.name} ${u.node ?? ''}`),
    ...r.waiters.map((w) => `${w.namespace}/${w.name} ${w.node ?? ''}`),
  ]
    .join(' ')
    .toLowerCase();

function useFiltered(rows: readonly VolumeRow[], risks: ReadonlySet<Risk>, query: string) {
  return useMemo(() => {
    const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    return rows.filter(
      (r) => (risks.size === 0 || risks.has(r.risk)) && terms.every((t) => searchText(r).includes(t)),
    );
  }, [rows, risks, query]);
}

export function VolumesPage({ onDetach: given }: { onDetach?: DetachHandler }) {
  const { cluster } = useCluster();
  const openDetach = useDetachHandler();
  const onDetach = given ?? openDetach;
  const trpc = useVolumesTRPC();
  const live = useVolumesLive(cluster);
  const list = useQuery({
    ...trpc.volumes.list.queryOptions({ cluster: cluster ?? '' }),
    enabled: !!cluster,
    refetchInterval: live === 'polling' ? FALLBACK_REFETCH_MS : false,
  });
  const [risks, setRisks] = useState<ReadonlySet<Risk>>(new Set());
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string | undefined>();
  useEffect(() => {
    const close = () => setSelected(undefined);
    window.addEventListener(CLOSE_EVENT, close);
    return () => window.removeEventListener(CLOSE_EVENT, close);
  }, []);
  const rows = list.data?.rows ?? [];
  const fences = useMemo(() => fenceNotesByNode(list.data?.fences), [list.data]);
  const shown = useFiltered(rows, risks, query);
  const counts = useMemo(
    () =>
      Object.fromEntries(RISKS.map((k) => [k, rows.filter((r) => r.risk === k).length])) as Record<
        Risk,
        number
      >,
    [rows],
  );
  const toggle = (r: Risk) =>
    setRisks((s) => {
      const n = new Set(s);
      if (n.has(r)) n.delete(r);
      else n.add(r);
      return n;
    });

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Volumes</h1>
        <FilterChips
          states={RISKS}
          active={risks}
          onToggle={toggle}
          label="Filter by state"
          counts={counts}
          dot={RISK_DOT}
          names={RISK_LABEL}
        />
        <SearchBox
          value={query}
          onChange={setQuery}
          placeholder="Search volumes, claims, pods, nodes…"
          label="Search volumes"
        />
        <span className="ml-auto text-xs text-dim">
          {shown.length} of {rows.length}
        </span>
      </div>
      {list.data && <MetaLine data={list.data} live={live} />}
      {list.data && <AtAGlance rows={rows} />}
      {list.error && (
        <p role="alert" className="px-3 py-2 text-sm text-crit">
          Cannot read volumes: {list.error.message}
        </p>
      )}
      <div className="flex min-h-0 flex-1">
        <div className="min-h-0 flex-1 overflow-auto">
          <VolumesTable
            rows={shown}
            truth={!!list.data?.truth.available}
            selected={selected}
            onSelect={(pv) => setSelected((s) => (s === pv ? undefined : pv))}
            onDetach={onDetach}
            fences={fences}
          />
          {shown.length === 0 && (
            <p role="status" className="p-6 text-center text-sm text-dim">
              {!cluster ? 'No cluster selected.' : list.data ? 'No volumes match.' : 'Loading volumes…'}
            </p>
          )}
        </div>
        {selected && cluster && (
          <VolumeDetail
            cluster={cluster}
            pv={selected}
            onClose={() => setSelected(undefined)}
            onDetach={onDetach}
          />
        )}
      </div>
    </div>
  );
}

function MetaLine({ data, live }: { data: VolumeList; live: VolumesLiveState }) {
  const fd = data.forceDetach;
  return (
    <p className="flex flex-wrap gap-x-5 gap-y-1 border-b border-line bg-panel px-3 py-1 text-xs text-dim">
      <span data-testid="volumes-force-detach">
        Force detach:{' '}
        <span className="text-fg">
          {fd.enabled ? `${durationWords(fd.maxWaitMs)} after a pod leaves a NotReady node` : 'disabled'}
        </span>{' '}
        ({fd.source === 'cluster' ? "this cluster's setting" : "kube-controller-manager's default, assumed"})
      </span>
      {data.embedded && (
        <span>
          Writers:{' '}
          {data.truth.available ? (
            <span className="text-info">ground truth of the embedded cluster (simulation only)</span>
          ) : (
            <span className="text-warn">{data.truth.error ?? 'ground truth unavailable'}</span>
          )}
        </span>
      )}
      <span>
        {live === 'polling'
          ? `No live feed on this server: re-read every ${FALLBACK_REFETCH_MS / 1000}s`
          : live === 'live'
            ? 'Live'
            : 'Connecting…'}
      </span>
      {!data.synced && <span className="text-warn">Informers still syncing: the list may be incomplete</span>}
    </p>
  );
}

/** A volume as people name it: its claim, else the PV. */
const nameOf = (r: VolumeRow) => (r.claim ? `${r.claim.namespace}/${r.claim.name}` : r.pv);

/** What must not be missed, in one line each. */
function AtAGlance({ rows }: { rows: readonly VolumeRow[] }) {
  const split = rows.filter((r) => r.risk === 'split-brain-risk');
  const stuck = rows.filter((r) => r.risk === 'stuck');
  if (!split.length && !stuck.length) return null;
  return (
    <div
      role="alert"
      aria-label="Volumes at risk"
      className="border-b border-crit/50 bg-crit/10 px-3 py-1.5 text-sm"
    >
      {split.length > 0 && (
        <p>
          <span className="font-semibold text-crit">
            {split.length} volume{split.length > 1 ? 's' : ''} at split-brain risk:
          </span>{' '}
          held by a node that may still write while a pod waits elsewhere — do not detach or force-delete
          before the node is fenced ({split.map(nameOf).join(', ')}).
        </p>
      )}
      {stuck.length > 0 && (
        <p>
          <span className="font-semibold text-crit">{stuck.length} stuck:</span> held by unreachable nodes or
          detaches that do not finish ({stuck.map(nameOf).join(', ')}).
        </p>
      )}
    </div>
  );
}
