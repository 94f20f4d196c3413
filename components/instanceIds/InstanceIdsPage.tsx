'use client';
// The Instance IDs page (seed 002): every workload whose pods take unique instance IDs, with
// its map — which pod holds which ID, free IDs, pods still waiting — and what needs a person:
// stale entries (pods gone, terminating or finished), conflicts (an ID written twice, a pod
// holding several, IDs at or above the replica count, a map Palisade cannot read) and, on the
// embedded cluster, IDs two running processes hold at once (the ground truth). Live through the
// instance-IDs room; nothing polls.
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { formatAge } from '@/lib/console/ui/format';
import { ROW_FLAGS, type RowFlag, rowFlags } from '@/lib/instanceIds/flags';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { FilterChips, SearchBox } from '../lists/controls';
import { type InstanceIdList, type InstanceIdRowData, useInstanceIdsTRPC } from './api';
import { type InstanceIdsLiveState, useInstanceIdsLive } from './live';

/** Only when the server has no instance-IDs feed: how often to re-read instead. */
const FALLBACK_REFETCH_MS = 5_000;

const FLAG_LABEL: Record<RowFlag, string> = {
  conflict: 'conflicts',
  stale: 'stale entries',
  waiting: 'pods waiting',
  ok: 'healthy',
};
const FLAG_DOT: Record<RowFlag, string> = {
  conflict: 'bg-crit',
  stale: 'bg-warn',
  waiting: 'bg-info',
  ok: 'bg-ok',
};

const searchText = (r: InstanceIdRowData) =>
  [r.key, r.kind, ...r.pods.map((p) => `${p.name} ${p.node ?? ''}`), ...r.entries.map((e) => e.pod ?? '')]
    .join(' ')
    .toLowerCase();

export function InstanceIdsPage() {
  const { cluster } = useCluster();
  const trpc = useInstanceIdsTRPC();
  const live = useInstanceIdsLive(cluster);
  const list = useQuery({
    ...trpc.instanceIds.list.queryOptions({ cluster: cluster ?? '' }),
    enabled: !!cluster,
    refetchInterval: live === 'polling' ? FALLBACK_REFETCH_MS : false,
  });
  const [flags, setFlags] = useState<ReadonlySet<RowFlag>>(new Set());
  const [query, setQuery] = useState('');
  const rows = list.data?.rows ?? [];
  const flagsOf = useMemo(() => new Map(rows.map((r) => [r.key, rowFlags(r)])), [rows]);
  const counts = useMemo(
    () =>
      Object.fromEntries(
        ROW_FLAGS.map((f) => [f, rows.filter((r) => flagsOf.get(r.key)?.has(f)).length]),
      ) as Record<RowFlag, number>,
    [rows, flagsOf],
  );
  const shown = useMemo(() => {
    const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    return rows.filter(
      (r) =>
        (flags.size === 0 || [...flags].some((f) => flagsOf.get(r.key)?.has(f))) &&
        terms.every((t) => searchText(r).includes(t)),
    );
  }, [rows, flags, flagsOf, query]);
  const toggle = (f: RowFlag) =>
    setFlags((s) => {
      const n = new Set(s);
      if (n.has(f)) n.delete(f);
      else n.add(f);
      return n;
    });

  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="instance-ids-page">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Instance IDs</h1>
        <FilterChips
          states={ROW_FLAGS}
          active={flags}
          onToggle={toggle}
          label="Filter workloads"
          counts={counts}
          dot={FLAG_DOT}
          names={FLAG_LABEL}
        />
        <SearchBox
          value={query}
          onChange={setQuery}
          placeholder="Search workloads, pods, nodes…"
          label="Search instance IDs"
        />
        <span className="ml-auto text-xs text-dim">
          {shown.length} of {rows.length} workloads
        </span>
      </div>
      {list.data && <MetaLine data={list.data} live={live} />}
      {list.error && (
        <p role="alert" className="px-3 py-2 text-sm text-crit">
          Cannot read instance IDs: {list.error.message}
        </p>
      )}
      <div className="flex min-h-0 flex-1 flex-col gap-2 overflow-auto p-3">
        {shown.map((r) => (
          <WorkloadCard key={r.key} row={r} cluster={cluster ?? ''} truth={!!list.data?.truth.available} />
        ))}
        {shown.length === 0 && (
          <p role="status" className="p-6 text-center text-sm text-dim">
            {!cluster
              ? 'No cluster selected.'
              : !list.data
                ? 'Loading instance IDs…'
                : rows.length
                  ? 'No workload matches.'
                  : 'No workload uses instance IDs. Label one palisade.dev/instance-ids-enabled=true, or let its pods acquire one.'}
          </p>
        )}
      </div>
    </div>
  );
}

function MetaLine({ data, live }: { data: InstanceIdList; live: InstanceIdsLiveState }) {
  return (
    <p className="flex flex-wrap gap-x-5 gap-y-1 border-b border-line bg-panel px-3 py-1 text-xs text-dim">
      <span>
        Map: the <code className="font-mono">palisade.dev/instance-ids</code> annotation of each workload
      </span>
      {data.embedded && (
        <span>
          Holders:{' '}
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

const podHref = (cluster: string, ns: string, pod: string) =>
  `/clusters/${encodeURIComponent(cluster)}/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(pod)}`;

function WorkloadCard({ row, cluster, truth }: { row: InstanceIdRowData; cluster: string; truth: boolean }) {
  const label = `${row.kind} ${row.namespace}/${row.name}`;
  const f = rowFlags(row);
  const held = row.entries.filter((e) => e.state === 'held').length;
  return (
    <section
      aria-label={label}
      data-testid={`instance-ids-${row.namespace}-${row.name}`}
      className={`rounded border bg-panel p-3 ${f.has('conflict') ? 'border-crit/60' : f.has('stale') ? 'border-warn/60' : 'border-line'}`}
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 className="font-semibold">
          <span className="mr-1 rounded bg-panel-2 px-1.5 py-0.5 text-xs font-medium text-dim">
            {row.kind}
          </span>
          {row.namespace}/{row.name}
        </h2>
        <span className="text-sm text-dim">
          {held} of {row.replicas} IDs held · {row.readyReplicas} ready
          {row.enabled ? ' · opted in' : ''}
        </span>
        <span className="ml-auto flex gap-1">
          {[...f].map((x) => (
            <span
              key={x}
              className={`rounded border px-1.5 py-0.5 text-xs font-medium ${
                x === 'conflict'
                  ? 'border-crit/40 bg-crit/15 text-crit'
                  : x === 'stale'
                    ? 'border-warn/40 bg-warn/15 text-warn'
                    : x === 'waiting'
                      ? 'border-info/40 bg-info/15 text-info'
                      : 'border-ok/40 bg-ok/15 text-ok'
              }`}
            >
              {FLAG_LABEL[x]}
            </span>
          ))}
        </span>
      </header>
      {!row.valid && (
        <div role="alert" className="mt-2 rounded border border-crit/40 bg-crit/10 px-2 py-1 text-sm">
          <p className="font-medium text-crit">Palisade cannot read this map and will not rewrite it:</p>
          <ul className="list-disc pl-5">
            {row.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          <p className="text-xs text-dim">
            Correct it, or remove it to start over:{' '}
            <code className="font-mono">
              kubectl annotate {row.kind.toLowerCase()}/{row.name} -n {row.namespace}{' '}
              palisade.dev/instance-ids-
            </code>
          </p>
        </div>
      )}
      <IdGrid row={row} cluster={cluster} />
      {row.conflicts.length > 0 && (
        <Findings title="Conflicts" tone="crit">
          {row.conflicts.map((c) => (
            <li key={c.message}>{c.message}</li>
          ))}
        </Findings>
      )}
      {row.stale.length > 0 && (
        <Findings title="Stale entries (given back once their pods are known to have stopped)" tone="warn">
          {row.stale.map((e) => {
            const kept = row.unconfirmed.find((u) => u.pod === e.pod && u.id === e.id);
            return (
              <li key={`${e.key}-${e.pod}`} data-testid={`stale-${row.namespace}-${row.name}-${e.key}`}>
                ID {e.key}: {e.pod} —{' '}
                {e.state === 'gone' ? 'the pod no longer exists' : `the pod is ${e.state}`}
                {kept ? (
                  <>
                    ; kept, not known to have stopped: <span className="font-medium">{kept.text}</span>
                  </>
                ) : (
                  '; known to have stopped: given back with the next write'
                )}
              </li>
            );
          })}
        </Findings>
      )}
      {row.waiting.length > 0 && (
        <div className="mt-2 text-sm">
          <p>
            <span className="font-medium text-info">Without an ID:</span>{' '}
            {row.waiting.map((p, i) => (
              <span key={p}>
                {i > 0 && ', '}
                <Link className="underline decoration-dotted" href={podHref(cluster, row.namespace, p)}>
                  {p}
                </Link>
              </span>
            ))}
          </p>
          {row.free.length === 0 && row.unconfirmed.length > 0 && (
            <ul aria-label={`Why pods of ${row.namespace}/${row.name} wait`} className="list-disc pl-5">
              {row.unconfirmed.map((u) => (
                <li key={`${u.id}-${u.pod}`}>
                  waits for ID {u.id} held by {u.text}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {truth && row.holders && <Holders row={row} />}
      {row.raw !== undefined && (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-dim">
            The annotation as stored ({row.raw.length} bytes)
          </summary>
          <pre className="mt-1 overflow-auto rounded bg-panel-2 p-2 font-mono">{row.raw}</pre>
        </details>
      )}
    </section>
  );
}

/** One box per ID in [0, replicas), then any entry at or above it. */
function IdGrid({ row, cluster }: { row: InstanceIdRowData; cluster: string }) {
  const byId = new Map<number, InstanceIdRowData['entries']>();
  for (const e of row.entries) if (e.id !== undefined) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
  const ids = [
    ...Array.from({ length: row.replicas }, (_, i) => i),
    ...[...byId.keys()].filter((id) => id >= row.replicas).sort((a, b) => a - b),
  ];
  return (
    <ul aria-label={`Instance IDs of ${row.namespace}/${row.name}`} className="mt-2 flex flex-wrap gap-1.5">
      {ids.map((id) => {
        const entries = byId.get(id) ?? [];
        const e = entries[0];
        const tone =
          entries.length > 1 || id >= row.replicas
            ? 'border-crit/60 bg-crit/10'
            : !e
              ? 'border-dashed border-line text-dim'
              : e.state === 'held'
                ? 'border-ok/50 bg-ok/10'
                : 'border-warn/60 bg-warn/10';
        const what = !e
          ? 'free'
          : entries.length > 1
            ? `claimed by ${entries.map((x) => x.pod).join(' and ')}`
            : `${e.pod} (${e.state === 'held' ? 'running' : e.state})`;
        return (
          <li
            key={id}
            aria-label={`ID ${id}: ${what}`}
            data-testid={`id-${row.namespace}-${row.name}-${id}`}
            className={`min-w-36 rounded border px-2 py-1 text-xs ${tone}`}
          >
            <span className="font-mono font-semibold tabular-nums">{id}</span>{' '}
            {e?.pod ? (
              <Link className="hover:underline" href={podHref(cluster, row.namespace, e.pod)}>
                {entries.map((x) => x.pod).join(' · ')}
              </Link>
            ) : (
              <span>free</span>
            )}
            {e?.node && <span className="block text-dim">{e.node}</span>}
            {e && e.state !== 'held' && <span className="block font-medium">{e.state}</span>}
          </li>
        );
      })}
    </ul>
  );
}

function Findings({
  title,
  tone,
  children,
}: {
  title: string;
  tone: 'crit' | 'warn';
  children: React.ReactNode;
}) {
  return (
    <div className="mt-2 text-sm">
      <p className={`font-medium ${tone === 'crit' ? 'text-crit' : 'text-warn'}`}>{title}</p>
      <ul className="list-disc pl-5">{children}</ul>
    </div>
  );
}

/** Embedded cluster only: which running processes hold which ID (what the programs believe). */
function Holders({ row }: { row: InstanceIdRowData }) {
  const now = useNow(1000);
  const dup = new Set(row.duplicates?.map((d) => d.id));
  return (
    <section className="mt-2 text-xs" aria-label={`Ground truth of ${row.namespace}/${row.name}`}>
      {row.duplicates && row.duplicates.length > 0 && (
        <p role="alert" className="mb-1 text-sm font-medium text-crit">
          {row.duplicates
            .map((d) => `ID ${d.id} is held by ${d.pods.length} running pods at once (${d.pods.join(', ')})`)
            .join('; ')}{' '}
          — ground truth, simulation only
        </p>
      )}
      <p className="text-dim">
        Ground truth (simulation):{' '}
        {row.holders!.length === 0
          ? 'no running process holds an ID'
          : row.holders!.map((h, i) => (
              <span key={`${h.id}-${h.pod}`} className={dup.has(h.id) ? 'font-medium text-crit' : ''}>
                {i > 0 && ', '}
                {h.id} → {h.pod} on {h.node} ({formatAge(now - h.since)})
              </span>
            ))}
      </p>
    </section>
  );
}
