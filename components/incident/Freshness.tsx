'use client';
// How fresh the view is, and the stale-data banner when a watch lags more than 10 s: the counts
// are then the last ones known, not the cluster now.
import { formatAge } from '@/lib/console/ui/format';
import { staleText } from '@/lib/incident/text';
import type { IncidentData } from './live';

export function FreshnessNote({ data }: { data: IncidentData }) {
  const f = data.freshness;
  return (
    <span className="text-xs text-dim" data-testid="incident-freshness">
      {f.ageMs === undefined ? 'no data received yet' : `data ${formatAge(f.ageMs)} old`}
      {f.lagMs > 0 && !f.stale && ` · watches ${formatAge(f.lagMs)} behind`}
    </span>
  );
}

export function StaleBanner({ data }: { data: IncidentData }) {
  const f = data.freshness;
  if (!f.stale) return null;
  return (
    <div
      role="alert"
      data-testid="incident-stale"
      className="border-b border-crit/50 bg-crit/10 px-3 py-2 text-sm"
    >
      <p className="font-semibold">
        Stale data: the watches lag {formatAge(f.lagMs)} behind the cluster. What follows may no longer be
        true.
      </p>
      <ul className="list-disc pl-5 text-xs">
        {f.reasons.map((r) => (
          <li key={`${r.code}/${'kind' in r ? r.kind : ''}`}>{staleText(r)}</li>
        ))}
      </ul>
    </div>
  );
}
