import { AgeCell } from '../lists/cells';
import type { CellRow } from './types';

const HEAD = ['Cell', 'Total', 'Available', 'Ready', 'Scheduled', 'Running', 'Last event', 'Lag / buckets'];

/** Per cell: the aggregator's counts at its snapshot and the admissions since (lag). */
export function CellsTable({ cells }: { cells: readonly CellRow[] }) {
  if (cells.length === 0) return <p className="text-sm text-dim">No cell has reported yet.</p>;
  return (
    <table aria-label="Cells" className="w-full text-sm">
      <thead className="text-left text-xs text-dim">
        <tr>
          {HEAD.map((h) => (
            <th key={h} className="py-1 pr-3 font-medium">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="tabular-nums">
        {cells.map((c) => (
          <tr key={c.id} className="border-t border-line">
            <td className="py-1 pr-3 font-mono">{c.id}</td>
            <td className="pr-3">{c.total}</td>
            <td className="pr-3">{c.available}</td>
            <td className="pr-3">{c.ready}</td>
            <td className="pr-3">{c.scheduled}</td>
            <td className="pr-3">{c.running}</td>
            <td className="pr-3">
              <AgeCell since={c.lastEventTime} suffix=" ago" />
            </td>
            <td className="pr-3" title={c.buckets.map((b) => b.podName ?? `${b.count} compacted`).join('\n')}>
              {c.lag} / {c.buckets.length}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
