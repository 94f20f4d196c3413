// Availability against the floor: one bar of `total` replicas with the estimated and
// aggregated counts drawn over it and a tick at minAvailable. Deletions are admitted
// only while the estimate stays above the floor.
import type { ProtectorRow } from './types';

const pct = (n: number, total: number) => `${total > 0 ? Math.min(100, (n / total) * 100) : 0}%`;

export function Gauge({ row }: { row: ProtectorRow }) {
  const total = Math.max(row.total, row.minAvailable, row.aggregated, 1);
  const spare = row.estimated - row.minAvailable;
  return (
    <div>
      <div
        role="img"
        aria-label={`Availability: estimated ${row.estimated}, aggregated ${row.aggregated}, required ${row.minAvailable}, total ${row.total}`}
        className="relative h-6 overflow-hidden rounded bg-panel-2"
      >
        <div className="absolute inset-y-0 left-0 bg-info/30" style={{ width: pct(row.aggregated, total) }} />
        <div
          className={`absolute inset-y-1.5 left-0 ${spare > 0 ? 'bg-ok' : 'bg-warn'}`}
          style={{ width: pct(row.estimated, total) }}
        />
        <div className="absolute inset-y-0 w-0.5 bg-crit" style={{ left: pct(row.minAvailable, total) }} />
      </div>
      <dl className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-xs">
        <Stat label="Estimated" value={row.estimated} dot={spare > 0 ? 'bg-ok' : 'bg-warn'} />
        <Stat label="Aggregated" value={row.aggregated} dot="bg-info/30" />
        <Stat label="Required (minAvailable)" value={row.minAvailable} dot="bg-crit" />
        <Stat label="Total" value={row.total} dot="bg-panel-2 border border-line" />
        <Stat label="Deletions admissible now" value={Math.max(0, spare)} />
      </dl>
    </div>
  );
}

function Stat({ label, value, dot }: { label: string; value: number; dot?: string }) {
  return (
    <div className="flex items-center gap-1.5">
      {dot && <span className={`inline-block h-2.5 w-2.5 rounded-sm ${dot}`} aria-hidden="true" />}
      <dt className="text-dim">{label}</dt>
      <dd className="font-semibold tabular-nums">{value}</dd>
    </div>
  );
}
