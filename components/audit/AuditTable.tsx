'use client';
// The Audit page's table: one row per recorded console action (a Kubernetes Event written by
// palisade-console), newest first — who, what, target, why, safe or overridden, when.
import { formatAge, formatClock } from '@/lib/console/ui/format';
import type { AuditRow } from '../actions/api';

const OUTCOME: Record<AuditRow['outcome'], { text: string; className: string }> = {
  safe: { text: 'safe', className: 'bg-ok/15 text-ok' },
  overridden: { text: 'overridden', className: 'bg-crit/15 text-crit' },
  simulation: { text: 'simulation', className: 'bg-info/15 text-info' },
  // Palisade's own steps (fences, releases): in words, not a colour
  automatic: { text: 'automatic', className: 'border border-line bg-panel-2' },
  // a fence step a person caused (Fence now, an approval)
  person: { text: 'by a person', className: 'bg-warn/15 text-warn' },
};

function targetOf(r: AuditRow) {
  const t = r.target;
  return `${t.kind ?? ''} ${t.namespace ? `${t.namespace}/` : ''}${t.name ?? ''}`.trim();
}

export function AuditTable({ rows, now, empty }: { rows: AuditRow[]; now: number; empty: string }) {
  return (
    <table data-testid="audit-table" className="w-full border-collapse text-xs">
      <thead className="sticky top-0 bg-panel text-left text-dim">
        <tr>
          <th className="px-2 py-1 font-medium">When</th>
          <th className="px-2 py-1 font-medium">Who</th>
          <th className="px-2 py-1 font-medium">What</th>
          <th className="px-2 py-1 font-medium">Target</th>
          <th className="px-2 py-1 font-medium">Why</th>
          <th className="px-2 py-1 font-medium">Guard</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={6} className="px-2 py-3 text-dim">
              {empty}
            </td>
          </tr>
        )}
        {rows.map((r) => (
          <tr key={r.uid} className="border-t border-line align-top" data-outcome={r.outcome}>
            <td
              className="whitespace-nowrap px-2 py-1 font-mono"
              title={r.at ? new Date(r.at).toISOString() : ''}
            >
              {formatClock(r.at)}
              {r.at ? <span className="block text-dim">{formatAge(Math.max(0, now - r.at))} ago</span> : null}
            </td>
            <td className="px-2 py-1">{r.by}</td>
            <td className="px-2 py-1">
              <span className="font-semibold">{r.label}</span>
              <span className="block text-dim">{r.what}</span>
            </td>
            <td className="px-2 py-1 font-mono">{targetOf(r)}</td>
            <td className="px-2 py-1">{r.why || <span className="text-dim">—</span>}</td>
            <td className="px-2 py-1">
              <span
                className={`rounded px-1.5 py-0.5 font-semibold ${OUTCOME[r.outcome].className}`}
                title={r.reasons.join('\n')}
              >
                {OUTCOME[r.outcome].text}
              </span>
              {r.reasons.length > 0 && (
                <details className="mt-1">
                  <summary className="cursor-pointer text-dim">
                    {r.reasons.length} reason(s) overridden
                  </summary>
                  <ul className="list-disc pl-4">
                    {r.reasons.map((x) => (
                      <li key={x}>{x}</li>
                    ))}
                  </ul>
                </details>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
