'use client';
import { formatClock } from '@/lib/console/ui/format';
import type { EventRow } from '../pod/normalize';

/** Kubernetes Events of one object, newest first. */
export function EventsTable({ events, empty }: { events: readonly EventRow[]; empty: string }) {
  if (events.length === 0) return <p className="text-xs text-dim">{empty}</p>;
  return (
    <table className="w-full text-xs">
      <thead>
        <tr className="text-left text-dim">
          <th className="pr-2 font-normal">last seen</th>
          <th className="pr-2 font-normal">type</th>
          <th className="pr-2 font-normal">reason</th>
          <th className="pr-2 font-normal">count</th>
          <th className="font-normal">message</th>
        </tr>
      </thead>
      <tbody>
        {[...events]
          .sort((a, b) => (b.last ?? 0) - (a.last ?? 0))
          .map((e) => (
            <tr key={`${e.reason}-${e.last}-${e.message}`} className="border-t border-line align-top">
              <td className="py-1 pr-2 font-mono whitespace-nowrap">{formatClock(e.last)}</td>
              <td className={`py-1 pr-2 ${e.type === 'Warning' ? 'text-warn' : 'text-dim'}`}>{e.type}</td>
              <td className="py-1 pr-2 font-medium">{e.reason}</td>
              <td className="py-1 pr-2 tabular-nums">{e.count}</td>
              <td className="py-1 break-words">{e.message}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
