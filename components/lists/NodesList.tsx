'use client';
import { useDeferredValue, useMemo, useState } from 'react';
import type { NodeView } from '@/lib/console/protocol';
import { formatAge } from '@/lib/console/ui/format';
import {
  NODE_DISPLAY_STATES,
  NODE_DOT_CLASS,
  NODE_STATE_LABEL,
  type NodeDisplayState,
  nodeDisplayState,
} from '@/lib/console/ui/states';
import { emptyNodeCounts } from '@/lib/console/ui/summary';
import { matchesSearch, type SortSpec, sortRows, toggleSort, toggled } from '@/lib/console/ui/table';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useNodes, usePods } from '../console/live';
import { type Column, FilterChips, SearchBox, VirtualTable } from './VirtualTable';

type Key = 'name' | 'state' | 'zone' | 'rack' | 'pods' | 'heartbeat' | 'taints';
interface Row {
  node: NodeView;
  state: NodeDisplayState;
  pods: number;
}

const STATE_RANK: Record<NodeDisplayState, number> = {
  'out-of-service': 0,
  unknown: 1,
  'not-ready': 2,
  suspect: 3,
  cordoned: 4,
  ready: 5,
};

export function NodesList() {
  const { cluster } = useCluster();
  const nodes = useNodes(cluster);
  const pods = usePods(cluster);
  const now = useNow(1000) || Date.now();
  const [query, setQuery] = useState('');
  const q = useDeferredValue(query);
  const [states, setStates] = useState<ReadonlySet<NodeDisplayState>>(new Set());
  const [sort, setSort] = useState<SortSpec<Key>>({ key: 'name', dir: 'asc' });

  const all = useMemo<Row[]>(
    () =>
      [...(nodes?.byKey.values() ?? [])].map((n) => ({
        node: n,
        state: nodeDisplayState(n, now),
        pods: pods?.byNode.get(n.name)?.length ?? 0,
      })),
    [nodes, pods, now],
  );
  const counts = useMemo(() => {
    const c = emptyNodeCounts();
    for (const r of all) c[r.state]++;
    return c;
  }, [all]);
  const rows = useMemo(() => {
    const filtered = all.filter(
      (r) =>
        (states.size === 0 || states.has(r.state)) &&
        matchesSearch([r.node.name, r.node.zone, r.node.rack, ...r.node.taints.map((t) => t.key)], q),
    );
    return sortRows(
      filtered,
      sort,
      {
        name: (r) => r.node.name,
        state: (r) => STATE_RANK[r.state],
        zone: (r) => r.node.zone,
        rack: (r) => r.node.rack,
        pods: (r) => r.pods,
        heartbeat: (r) => r.node.lastHeartbeat,
        taints: (r) => r.node.taints.length,
      },
      (r) => r.node.name,
    );
  }, [all, states, q, sort]);

  const columns: Column<Row, Key>[] = [
    {
      key: 'name',
      label: 'Name',
      width: 'minmax(120px,1.2fr)',
      sortable: true,
      render: (r) => <span className="font-mono">{r.node.name}</span>,
    },
    {
      key: 'state',
      label: 'State',
      width: '130px',
      sortable: true,
      render: (r) => (
        <span className="flex items-center gap-1.5">
          <span
            className={`inline-block h-2 w-2 rounded-full ${NODE_DOT_CLASS[r.state]}`}
            aria-hidden="true"
          />
          {NODE_STATE_LABEL[r.state]}
        </span>
      ),
    },
    { key: 'zone', label: 'Zone', width: '110px', sortable: true, render: (r) => r.node.zone },
    { key: 'rack', label: 'Rack', width: '80px', sortable: true, render: (r) => r.node.rack },
    {
      key: 'pods',
      label: 'Pods',
      width: '60px',
      sortable: true,
      align: 'right',
      render: (r) => <span className="tabular-nums">{r.pods}</span>,
    },
    {
      key: 'heartbeat',
      label: 'Heartbeat',
      width: '100px',
      sortable: true,
      align: 'right',
      render: (r) => (
        <span className="font-mono tabular-nums">
          {r.node.lastHeartbeat ? `${formatAge(now - r.node.lastHeartbeat)} ago` : '—'}
        </span>
      ),
    },
    {
      key: 'taints',
      label: 'Taints',
      width: 'minmax(160px,2fr)',
      sortable: true,
      render: (r) => (
        <span
          className="font-mono text-xs text-dim"
          title={r.node.taints.map((t) => `${t.key}:${t.effect}`).join('\n')}
        >
          {r.node.unschedulable ? 'cordoned ' : ''}
          {r.node.taints.map((t) => `${t.key.replace('node.kubernetes.io/', '')}:${t.effect}`).join(', ')}
        </span>
      ),
    },
  ];

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Nodes</h1>
        <SearchBox
          value={query}
          onChange={setQuery}
          placeholder="Search nodes, zones, racks, taints…"
          label="Search nodes"
        />
        <FilterChips
          label="Filter by state"
          states={NODE_DISPLAY_STATES}
          active={states}
          counts={counts}
          dot={NODE_DOT_CLASS}
          names={NODE_STATE_LABEL}
          onToggle={(s) => setStates((cur) => toggled(cur, s))}
        />
        <span className="ml-auto text-xs text-dim">
          {rows.length} of {all.length}
        </span>
      </div>
      <VirtualTable
        label="Nodes"
        rows={rows}
        columns={columns}
        sort={sort}
        onSort={(k) => setSort((s) => toggleSort(s, k))}
        rowKey={(r) => r.node.name}
        empty={nodes ? 'No nodes match.' : 'Loading nodes…'}
      />
    </div>
  );
}
