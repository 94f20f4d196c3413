'use client';
import Link from 'next/link';
import { useDeferredValue, useMemo, useState } from 'react';
import type { PodState, PodView } from '@/lib/console/protocol';
import { formatAge, formatCountdown } from '@/lib/console/ui/format';
import { isOverdue, POD_DOT_CLASS, POD_STATES } from '@/lib/console/ui/states';
import { emptyPodCounts } from '@/lib/console/ui/summary';
import { matchesSearch, type SortSpec, sortRows, toggleSort, toggled } from '@/lib/console/ui/table';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useNodes, usePods } from '../console/live';
import { podHref } from '../map/NodePanel';
import { type Column, FilterChips, SearchBox, VirtualTable } from './VirtualTable';

type Key = 'namespace' | 'name' | 'state' | 'node' | 'owner' | 'age' | 'grace' | 'ip';

export function PodsList() {
  const { cluster } = useCluster();
  const pods = usePods(cluster);
  const nodes = useNodes(cluster);
  const now = useNow(1000) || Date.now();
  const [query, setQuery] = useState('');
  const q = useDeferredValue(query);
  const [states, setStates] = useState<ReadonlySet<PodState>>(new Set());
  const [overdueOnly, setOverdueOnly] = useState(false);
  const [sort, setSort] = useState<SortSpec<Key>>({ key: 'namespace', dir: 'asc' });

  const all = useMemo(() => [...(pods?.byKey.values() ?? [])], [pods]);
  const counts = useMemo(() => {
    const c = emptyPodCounts();
    for (const p of all) c[p.state]++;
    return c;
  }, [all]);
  const filtered = useMemo(
    () =>
      all.filter(
        (p) =>
          (states.size === 0 || states.has(p.state)) &&
          matchesSearch([p.namespace, p.name, p.node, p.owner?.name, p.podIP, p.state], q),
      ),
    [all, states, q],
  );
  // the clock matters to the rows only when "past grace only" is on
  const overdueClock = overdueOnly ? now : 0;
  const rows = useMemo(() => {
    const base = overdueClock ? filtered.filter((p) => isOverdue(p, overdueClock)) : filtered;
    return sortRows(
      base,
      sort,
      {
        namespace: (p) => p.namespace,
        name: (p) => p.name,
        state: (p) => POD_STATES.indexOf(p.state),
        node: (p) => p.node,
        owner: (p) => (p.owner ? `${p.owner.kind}/${p.owner.name}` : undefined),
        age: (p) => (p.createdAt ? -p.createdAt : undefined),
        grace: (p) => p.deletionTimestamp,
        ip: (p) => p.podIP,
      },
      (p) => `${p.namespace}/${p.name}`,
    );
  }, [filtered, sort, overdueClock]);

  const c = cluster ?? '';
  const columns: Column<PodView, Key>[] = [
    {
      key: 'namespace',
      label: 'Namespace',
      width: 'minmax(90px,0.8fr)',
      sortable: true,
      render: (p) => <span className="text-dim">{p.namespace}</span>,
    },
    {
      key: 'name',
      label: 'Name',
      width: 'minmax(160px,1.6fr)',
      sortable: true,
      render: (p) => (
        <Link href={podHref(c, p)} className="font-mono hover:underline">
          {p.name}
        </Link>
      ),
    },
    {
      key: 'state',
      label: 'State',
      width: '110px',
      sortable: true,
      render: (p) => (
        <span className="flex items-center gap-1.5">
          <span className={`inline-block h-2 w-2 rounded-sm ${POD_DOT_CLASS[p.state]}`} aria-hidden="true" />
          {p.state}
        </span>
      ),
    },
    {
      key: 'grace',
      label: 'Grace',
      width: '110px',
      sortable: true,
      render: (p) =>
        p.deletionTimestamp ? (
          <span
            className={`font-mono text-xs ${isOverdue(p, now) ? 'font-semibold text-crit' : 'text-warn'}`}
          >
            {formatCountdown(p.deletionTimestamp, now).text}
          </span>
        ) : null,
    },
    {
      key: 'node',
      label: 'Node',
      width: '100px',
      sortable: true,
      render: (p) => {
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
    },
    {
      key: 'owner',
      label: 'Owner',
      width: 'minmax(120px,1fr)',
      sortable: true,
      render: (p) => (
        <span className="text-xs text-dim">{p.owner ? `${p.owner.kind}/${p.owner.name}` : '—'}</span>
      ),
    },
    {
      key: 'ip',
      label: 'IP',
      width: '110px',
      sortable: true,
      render: (p) => <span className="font-mono text-xs">{p.podIP ?? ''}</span>,
    },
    {
      key: 'age',
      label: 'Age',
      width: '70px',
      sortable: true,
      align: 'right',
      render: (p) => (
        <span className="font-mono tabular-nums">{p.createdAt ? formatAge(now - p.createdAt) : '—'}</span>
      ),
    },
  ];

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
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
        <span className="ml-auto text-xs text-dim">
          {rows.length} of {all.length}
        </span>
      </div>
      <VirtualTable
        label="Pods"
        rows={rows}
        columns={columns}
        sort={sort}
        onSort={(k) => setSort((s) => toggleSort(s, k))}
        rowKey={(p) => p.uid || `${p.namespace}/${p.name}`}
        empty={pods ? 'No pods match.' : 'Loading pods…'}
      />
    </div>
  );
}
