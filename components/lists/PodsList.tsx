'use client';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { NodeCollection } from '@/lib/console/ui/live';
import type { PodState, PodView } from '@/lib/console/protocol';
import { isOverdue, POD_DOT_CLASS, POD_STATES } from '@/lib/console/ui/states';
import { emptyPodCounts } from '@/lib/console/ui/summary';
import { comparePodStates, toggled } from '@/lib/console/ui/table';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useNodes, usePods } from '../console/live';
import { GuardLinks, podHref } from '../map/NodePanel';
import { usePodProtection } from '../protection/usePodProtection';
import { type PodProtectorIndex, podKey } from '@/lib/console/ui/protection';
import { AgeCell, GraceCell } from './cells';
import { FilterChips, SearchBox } from './controls';
import { DataTable } from './DataTable';
import { columnsFor, inSet, sortBy } from './tableModel';

const col = columnsFor<PodView>();

/**
 * The columns; the name links to the pod's page, the node shows red when not Ready, the
 * protector column links to the PodProtectors that guard the pod.
 */
function podColumns(cluster: string, nodes: NodeCollection | undefined, guarded: PodProtectorIndex) {
  return col.columns([
    col.accessor('namespace', {
      header: 'Namespace',
      meta: { width: 'minmax(90px,0.8fr)' },
      cell: (c) => <span className="text-dim">{c.getValue()}</span>,
    }),
    col.accessor('name', {
      header: 'Name',
      meta: { width: 'minmax(160px,1.6fr)' },
      cell: ({ row: { original: p } }) => (
        <Link href={podHref(cluster, p)} className="font-mono hover:underline">
          {p.name}
        </Link>
      ),
    }),
    col.accessor('state', {
      header: 'State',
      meta: { width: '110px' },
      sortFn: sortBy(comparePodStates),
      filterFn: inSet,
      cell: (c) => (
        <span className="flex items-center gap-1.5">
          <span
            className={`inline-block h-2 w-2 rounded-sm ${POD_DOT_CLASS[c.getValue()]}`}
            aria-hidden="true"
          />
          {c.getValue()}
        </span>
      ),
    }),
    col.accessor('deletionTimestamp', {
      id: 'grace',
      header: 'Grace',
      meta: { width: '110px' },
      // the filter's value is the clock: only pods past their grace period stay
      filterFn: (row, _id, now: number) => isOverdue(row.original, now),
      cell: ({ row }) => <GraceCell pod={row.original} />,
    }),
    col.accessor('node', {
      header: 'Node',
      meta: { width: '100px' },
      cell: ({ row: { original: p } }) => {
        const n = p.node ? nodes?.byKey.get(p.node) : undefined;
        return (
          <span
            className={`font-mono ${n && n.ready !== 'Ready' ? 'text-crit' : ''}`}
            title={n ? `node ${n.ready}` : undefined}
          >
            {p.node ?? <span className="text-dim">—</span>}
          </span>
        );
      },
    }),
    col.accessor((p) => guarded.get(podKey(p))?.join(', '), {
      id: 'protector',
      header: 'Protector',
      meta: { width: 'minmax(120px,1fr)' },
      // the filter's value is "protected only": rows without a protector go
      filterFn: (row, id) => !!row.getValue(id),
      cell: ({ row: { original: p } }) => <GuardLinks keys={guarded.get(podKey(p))} />,
    }),
    col.accessor((p) => (p.owner ? `${p.owner.kind}/${p.owner.name}` : undefined), {
      id: 'owner',
      header: 'Owner',
      meta: { width: 'minmax(120px,1fr)' },
      cell: (c) => <span className="text-xs text-dim">{c.getValue() ?? '—'}</span>,
    }),
    col.accessor('podIP', {
      id: 'ip',
      header: 'IP',
      meta: { width: '110px' },
      cell: (c) => <span className="font-mono text-xs">{c.getValue() ?? ''}</span>,
    }),
    // youngest first when ascending
    col.accessor((p) => (p.createdAt ? -p.createdAt : undefined), {
      id: 'age',
      header: 'Age',
      meta: { width: '70px', align: 'right' },
      cell: ({ row }) => <AgeCell since={row.original.createdAt} />,
    }),
  ]);
}

/** rows a sort leaves tied stay in namespace/name order */
const TIE_BREAK = ['namespace', 'name'];

export function PodsList() {
  const { cluster } = useCluster();
  const pods = usePods(cluster);
  const nodes = useNodes(cluster);
  const now = useNow(1000) || Date.now();
  const [query, setQuery] = useState('');
  const [states, setStates] = useState<ReadonlySet<PodState>>(new Set());
  const [overdueOnly, setOverdueOnly] = useState(false);
  const [guardedOnly, setGuardedOnly] = useState(false);
  const protection = usePodProtection(cluster);
  const guarded = protection.index;
  const searchFields = useMemo(
    () => (p: PodView) => [
      p.namespace,
      p.name,
      p.node,
      p.owner?.name,
      p.podIP,
      p.state,
      ...(guarded.get(podKey(p)) ?? []),
    ],
    [guarded],
  );

  const rows = useMemo(() => [...(pods?.byKey.values() ?? [])], [pods]);
  const columns = useMemo(() => podColumns(cluster ?? '', nodes, guarded), [cluster, nodes, guarded]);
  const counts = useMemo(() => {
    const c = emptyPodCounts();
    for (const p of rows) c[p.state]++;
    return c;
  }, [rows]);

  return (
    <DataTable
      label="Pods"
      rows={rows}
      columns={columns}
      rowKey={(p) => p.uid || `${p.namespace}/${p.name}`}
      tieBreak={TIE_BREAK}
      initialSort={{ id: 'namespace', desc: false }}
      search={query}
      searchFields={searchFields}
      // the clock matters to the rows only when "past grace only" is on
      filters={{ state: states, grace: overdueOnly ? now : undefined, protector: guardedOnly || undefined }}
      empty={pods ? 'No pods match.' : 'Loading pods…'}
      toolbar={
        <>
          <h1 className="font-semibold">Pods</h1>
          <SearchBox
            value={query}
            onChange={setQuery}
            placeholder="Search namespace, name, node, owner, IP…"
            label="Search pods"
          />
          <FilterChips
            label="Filter by state"
            states={POD_STATES}
            active={states}
            counts={counts}
            dot={POD_DOT_CLASS}
            onToggle={(s) => setStates((cur) => toggled(cur, s))}
          />
          <label className="flex items-center gap-1 text-xs">
            <input type="checkbox" checked={overdueOnly} onChange={(e) => setOverdueOnly(e.target.checked)} />
            past grace only
          </label>
          {protection.enabled && (
            <label className="flex items-center gap-1 text-xs">
              <input
                type="checkbox"
                checked={guardedOnly}
                onChange={(e) => setGuardedOnly(e.target.checked)}
              />
              protected only
            </label>
          )}
        </>
      }
    />
  );
}
