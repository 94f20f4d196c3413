import { formatClock } from '@/lib/console/ui/format';
import type { Decision } from './types';

const HEAD = ['Time', 'Pod', 'Result', 'Code', 'Message', 'Requester', 'Dry run'];

/**
 * Row keys: a storm brings several decisions for one pod in the same millisecond, and
 * React mixes up rows with equal keys (stale rows stay on screen), so repeats are numbered.
 */
function rowKeys(decisions: readonly Decision[]): string[] {
  const seen = new Map<string, number>();
  return decisions.map((d) => {
    const base = `${d.at}-${d.podUid}-${d.dryRun}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return `${base}-${n}`;
  });
}

/** The webhook's recent decisions for this protector, newest first. */
export function DecisionsTable({ decisions }: { decisions: readonly Decision[] }) {
  if (decisions.length === 0) return <p className="text-sm text-dim">No admission decision yet.</p>;
  const keys = rowKeys(decisions);
  return (
    <div className="max-h-80 overflow-auto">
      <table aria-label="Recent decisions" className="w-full text-sm">
        <thead className="sticky top-0 bg-panel text-left text-xs text-dim">
          <tr>
            {HEAD.map((h) => (
              <th key={h} className="py-1 pr-3 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {decisions.map((d, i) => (
            <tr key={keys[i]} className="border-t border-line align-top">
              <td className="py-1 pr-3 font-mono tabular-nums">{formatClock(d.at)}</td>
              <td className="pr-3 font-mono">{d.pod}</td>
              <td className={`pr-3 font-semibold ${d.allowed ? 'text-ok' : 'text-crit'}`}>
                {d.allowed ? 'allowed' : 'denied'}
              </td>
              <td className="pr-3 tabular-nums">{d.code}</td>
              <td className="pr-3 text-xs">
                {d.message || d.note || '—'}
                {d.snapshot?.indexed !== undefined && (
                  <span className="block text-dim">
                    judged on {d.snapshot.indexed} available this replica sees (aggregated:{' '}
                    {d.snapshot.aggregated})
                  </span>
                )}
              </td>
              <td className="pr-3 font-mono text-xs">{d.requester}</td>
              <td className="pr-3">{d.dryRun ? 'yes' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
