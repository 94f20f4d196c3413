'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { AgeCell } from '../lists/cells';
import { SearchBox } from '../lists/controls';
import { DataTable } from '../lists/DataTable';
import { columnsFor } from '../lists/tableModel';
import { useTRPC } from '../console/trpc';
import { useProtectionLive } from './live';
import { StateBadge } from './StateBadge';
import type { EnabledList, ProtectorRow } from './types';

export const detailHref = (r: { namespace: string; name: string }) =>
  `/protectors/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`;

const num = (v: number) => <span className="tabular-nums">{v}</span>;
const col = columnsFor<ProtectorRow>();
const columns = col.columns([
  col.accessor((r) => r.key, {
    id: 'name',
    header: 'Name',
    meta: { width: 'minmax(220px,2fr)' },
    cell: ({ row: { original: r } }) => (
      <Link href={detailHref(r)} className="font-mono text-info hover:underline">
        {r.key}
      </Link>
    ),
  }),
  col.accessor('minAvailable', {
    header: 'Required',
    meta: { width: '80px', align: 'right' },
    cell: (c) => num(c.getValue()),
  }),
  col.accessor('aggregated', {
    header: 'Aggregated',
    meta: { width: '90px', align: 'right' },
    cell: (c) => num(c.getValue()),
  }),
  col.accessor('estimated', {
    header: 'Estimated',
    meta: { width: '90px', align: 'right' },
    cell: (c) => num(c.getValue()),
  }),
  col.accessor('lag', {
    header: 'Lag',
    meta: { width: '60px', align: 'right' },
    cell: (c) => num(c.getValue()),
  }),
  col.accessor('state', {
    header: 'State',
    meta: { width: '100px' },
    cell: (c) => <StateBadge state={c.getValue()} />,
  }),
  col.accessor((r) => (r.source ? `${r.source.kind}/${r.source.name}` : undefined), {
    id: 'source',
    header: 'Source',
    meta: { width: 'minmax(160px,1.5fr)' },
    cell: (c) => <span className="font-mono text-xs">{c.getValue() ?? '—'}</span>,
  }),
  col.accessor((r) => r.cells.map((c) => c.id).join(', '), {
    id: 'cells',
    header: 'Cells',
    meta: { width: 'minmax(100px,1fr)' },
    cell: (c) => <span className="font-mono text-xs text-dim">{c.getValue() || '—'}</span>,
  }),
]);

const TIE_BREAK = ['name'];
const searchFields = (r: ProtectorRow) => [r.key, r.source?.name, r.state];

export function ProtectorsList() {
  const trpc = useTRPC();
  useProtectionLive();
  const list = useQuery(trpc.protection.list.queryOptions());
  const [query, setQuery] = useState('');
  const data = list.data;
  const rows = useMemo(() => (data?.enabled ? data.protectors : []), [data]);

  if (data && !data.enabled) return <ProtectionOff />;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      {data?.enabled && <Header data={data} />}
      {data?.enabled && <EnforcementAlert data={data} />}
      {list.error && (
        <p role="alert" className="px-3 py-2 text-sm text-crit">
          Cannot read protectors: {list.error.message}
        </p>
      )}
      <DataTable
        label="Protectors"
        rows={rows}
        columns={columns}
        rowKey={(r) => r.key}
        rowHref={detailHref}
        tieBreak={TIE_BREAK}
        initialSort={{ id: 'name', desc: false }}
        search={query}
        searchFields={searchFields}
        empty={data ? 'No protectors match.' : 'Loading protectors…'}
        toolbar={
          <>
            <h1 className="font-semibold">Protectors</h1>
            <SearchBox
              value={query}
              onChange={setQuery}
              placeholder="Search protectors…"
              label="Search protectors"
            />
          </>
        }
      />
    </div>
  );
}

function Header({ data }: { data: EnabledList }) {
  return (
    <section
      aria-label="Protection set-up"
      className="flex flex-wrap items-center gap-x-5 gap-y-1 border-b border-line bg-panel px-3 py-1.5 text-xs text-dim"
    >
      <span>
        Core: <span className="font-mono text-fg">{data.core.cluster}</span>
        {data.synced ? '' : ' (syncing…)'}
      </span>
      <span className="flex flex-wrap gap-x-3">
        Cells:
        {data.cells.map((c) => (
          <span key={c.id} className="font-mono text-fg">
            {c.id}{' '}
            <span className="text-dim">
              (snapshot <AgeCell since={c.snapshotTime} suffix=" ago" />)
            </span>
          </span>
        ))}
      </span>
      <span>
        Webhook: <span className="font-mono text-fg">{data.webhook}</span>
      </span>
      {data.enforcement.map((e) => (
        <span key={e.cell} title={e.message}>
          {data.enforcement.length > 1 ? `${e.cell}: ` : ''}
          <span className={NOT_ENFORCED.has(e.state) ? 'text-crit' : 'text-fg'}>
            {ENFORCEMENT_LABEL[e.state]}
          </span>
        </span>
      ))}
    </section>
  );
}

/** the webhook's state as the leader's self-probe found it (docs/protection.md) */
const ENFORCEMENT_LABEL: Record<string, string> = {
  enforced: 'enforced (failurePolicy Fail)',
  'enforced-unreachable': 'enforced, but the API server cannot reach a replica',
  'not-enforced': 'NOT enforced (failurePolicy Ignore)',
  'ignore-configured': 'failurePolicy Ignore (configured)',
  pending: 'not probed yet',
};
const NOT_ENFORCED = new Set(['not-enforced', 'enforced-unreachable']);

/** Says, loudly, when deletions of protected pods are not reviewed or are all refused. */
export function EnforcementAlert({ data }: { data: EnabledList }) {
  const bad = data.enforcement.filter((e) => NOT_ENFORCED.has(e.state));
  if (!bad.length) return null;
  return (
    <div role="alert" className="border-b border-line bg-panel px-3 py-2 text-sm text-crit">
      {bad.map((e) => (
        <p key={e.cell}>
          {data.enforcement.length > 1 ? `Cell ${e.cell}: ` : ''}
          {e.message}
        </p>
      ))}
    </div>
  );
}

function ProtectionOff() {
  return (
    <section
      aria-label="Protection off"
      className="m-4 max-w-2xl rounded border border-line bg-panel p-4 text-sm"
    >
      <h1 className="mb-2 font-semibold">Deletion protection is off</h1>
      <p className="mb-2 text-dim">
        This console does not run deletion protection, so there are no protectors to show. It is on by default
        for the embedded cluster; for other clusters, add a <code className="font-mono">protection:</code>{' '}
        section to <code className="font-mono">palisade.yaml</code> and restart the console:
      </p>
      <pre className="rounded bg-panel-2 p-2 font-mono text-xs">
        {
          'protection:\n  enabled: true\n  core: my-context   # where PodProtectors live (default: the first cluster)'
        }
      </pre>
    </section>
  );
}
