'use client';
// The Nodes list: every node with its state, zone, rack, pods, heartbeat and taints. A row
// (click, or Enter on it) and its name link open the node's panel on the map.
import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { NodeView } from '@/lib/console/protocol';
import {
  NODE_DISPLAY_STATES,
  NODE_MARK_CLASS,
  NODE_STATE_LABEL,
  type NodeDisplayState,
  nodeDisplayState,
} from '@/lib/console/ui/states';
import { emptyNodeCounts } from '@/lib/console/ui/summary';
import { compareNodeStates, toggled } from '@/lib/console/ui/table';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useNodes, usePods } from '../console/live';
import { NodeStateMark } from '../map/NodeStateMark';
import { AgeCell } from './cells';
import { FilterChips, SearchBox } from './controls';
import { DataTable } from './DataTable';
import { nodeHref } from './nodeLink';
import { columnsFor, inSet, sortBy } from './tableModel';

interface Row {
  node: NodeView;
  state: NodeDisplayState;
  pods: number;
}

const col = columnsFor<Row>();
const columns = col.columns([
  col.accessor((r) => r.node.name, {
    id: 'name',
    header: 'Name',
    meta: { width: 'minmax(120px,1.2fr)' },
    cell: (c) => (
      <Link href={nodeHref(c.getValue())} className="font-mono hover:underline">
        {c.getValue()}
      </Link>
    ),
  }),
  col.accessor('state', {
    header: 'State',
    meta: { width: '130px' },
    sortFn: sortBy(compareNodeStates),
    filterFn: inSet,
    cell: (c) => (
      <span className="flex items-center gap-1.5">
        <NodeStateMark state={c.getValue()} className="h-2 w-2" />
        {NODE_STATE_LABEL[c.getValue()]}
      </span>
    ),
  }),
  col.accessor((r) => r.node.zone, { id: 'zone', header: 'Zone', meta: { width: '110px' } }),
  col.accessor((r) => r.node.rack, { id: 'rack', header: 'Rack', meta: { width: '80px' } }),
  col.accessor('pods', {
    header: 'Pods',
    meta: { width: '60px', align: 'right' },
    cell: (c) => <span className="tabular-nums">{c.getValue()}</span>,
  }),
  col.accessor((r) => r.node.lastHeartbeat, {
    id: 'heartbeat',
    header: 'Heartbeat',
    meta: { width: '100px', align: 'right' },
    cell: (c) => <AgeCell since={c.getValue()} suffix=" ago" />,
  }),
  col.accessor((r) => r.node.taints.length, {
    id: 'taints',
    header: 'Taints',
    meta: { width: 'minmax(160px,2fr)' },
    cell: ({ row: { original: r } }) => (
      <span
        className="font-mono text-xs text-dim"
        title={r.node.taints.map((t) => `${t.key}:${t.effect}`).join('\n')}
      >
        {r.node.unschedulable ? 'cordoned ' : ''}
        {r.node.taints.map((t) => `${t.key.replace('node.kubernetes.io/', '')}:${t.effect}`).join(', ')}
      </span>
    ),
  }),
]);

/** rows a sort leaves tied stay in name order */
const TIE_BREAK = ['name'];
const searchFields = (r: Row) => [r.node.name, r.node.zone, r.node.rack, ...r.node.taints.map((t) => t.key)];

export function NodesList() {
  const { cluster } = useCluster();
  const nodes = useNodes(cluster);
  const pods = usePods(cluster);
  const now = useNow(1000) || Date.now();
  const [query, setQuery] = useState('');
  const [states, setStates] = useState<ReadonlySet<NodeDisplayState>>(new Set());

  // a node's display state depends on the clock (a late heartbeat makes it suspect)
  const rows = useMemo<Row[]>(
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
    for (const r of rows) c[r.state]++;
    return c;
  }, [rows]);

  return (
    <DataTable
      label="Nodes"
      rows={rows}
      columns={columns}
      rowKey={(r) => r.node.name}
      rowHref={(r) => nodeHref(r.node.name)}
      tieBreak={TIE_BREAK}
      initialSort={{ id: 'name', desc: false }}
      search={query}
      searchFields={searchFields}
      filters={{ state: states }}
      empty={nodes ? 'No nodes match.' : 'Loading nodes…'}
      toolbar={
        <>
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
            dot={NODE_MARK_CLASS}
            names={NODE_STATE_LABEL}
            onToggle={(s) => setStates((cur) => toggled(cur, s))}
          />
        </>
      }
    />
  );
}
