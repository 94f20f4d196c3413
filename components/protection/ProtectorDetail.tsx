'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { useNow } from '../console/clock';
import { useTRPC } from '../console/trpc';
import { CellsTable } from './CellsTable';
import { DecisionsTable } from './DecisionsTable';
import { Gauge } from './Gauge';
import { HistoryChart } from './HistoryChart';
import { useProtectionLive } from './live';
import { PreviewForm } from './PreviewForm';
import { StateBadge } from './StateBadge';

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="rounded border border-line bg-panel p-3">
      <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-dim">{title}</h2>
      {children}
    </section>
  );
}

export function ProtectorDetail({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  useProtectionLive();
  const q = useQuery(trpc.protection.get.queryOptions({ namespace, name }));
  const now = useNow(5000) || Date.now();
  const key = `${namespace}/${name}`;

  if (q.error)
    return (
      <div className="p-4 text-sm">
        <BackLink />
        <p role="alert" className="mt-2 text-crit">
          Cannot read PodProtector {key}: {q.error.message}
        </p>
      </div>
    );
  if (!q.data) return <p className="p-4 text-sm text-dim">Loading {key}…</p>;
  const { row, history, decisions } = q.data;

  return (
    <div className="flex flex-col gap-3 p-3">
      <BackLink />
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-lg font-semibold">{key}</h1>
        <StateBadge state={row.state} />
        {row.source && (
          <span className="text-sm text-dim">
            from {row.source.kind} <span className="font-mono text-fg">{row.source.name}</span>
          </span>
        )}
        <span className="font-mono text-xs text-dim">selector {row.selector || '(all)'}</span>
      </header>
      <Card title="Availability">
        <Gauge row={row} />
      </Card>
      <Card title="Cells">
        <CellsTable cells={row.cells} />
      </Card>
      <Card title="Admission history">
        <HistoryChart points={history} minAvailable={row.minAvailable} now={now} />
      </Card>
      <Card title="Would this deletion be admitted?">
        <PreviewForm protector={key} />
      </Card>
      <Card title="Recent decisions">
        <DecisionsTable decisions={decisions} />
      </Card>
    </div>
  );
}

function BackLink() {
  return (
    <Link href="/protectors" className="text-sm text-info hover:underline">
      ← Protectors
    </Link>
  );
}
