'use client';
// The merged timeline, newest first: when, what kind, how severe (in words), about what, who,
// and what happened — a fence step with the pods and volume attachments it released.
import { releasedText } from '@/lib/history/audit';
import type { HistoryEntry } from '@/lib/history/types';
import { KIND_LABEL, SEVERITY_CLASS } from './labels';

function subjectText(e: HistoryEntry) {
  const s = e.subject;
  return `${s.kind} ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
}

export function TimelineTable({ entries, empty }: { entries: HistoryEntry[]; empty: string }) {
  return (
    <table data-testid="timeline-table" className="w-full border-collapse text-xs">
      <thead className="sticky top-0 bg-panel text-left text-dim">
        <tr>
          <th className="px-2 py-1 font-medium">When (UTC)</th>
          <th className="px-2 py-1 font-medium">Kind</th>
          <th className="px-2 py-1 font-medium">Severity</th>
          <th className="px-2 py-1 font-medium">About</th>
          <th className="px-2 py-1 font-medium">Who</th>
          <th className="px-2 py-1 font-medium">What</th>
        </tr>
      </thead>
      <tbody>
        {entries.length === 0 && (
          <tr>
            <td colSpan={6} className="px-2 py-3 text-dim">
              {empty}
            </td>
          </tr>
        )}
        {entries.map((e) => {
          const released = e.kind === 'fence-step' ? releasedText(e.details) : '';
          return (
            <tr key={`${e.cluster}/${e.id}`} className="border-t border-line align-top" data-kind={e.kind}>
              <td className="whitespace-nowrap px-2 py-1 font-mono">
                {e.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}
              </td>
              <td className="px-2 py-1">{KIND_LABEL[e.kind]}</td>
              <td className="px-2 py-1">
                <span className={`rounded px-1.5 py-0.5 ${SEVERITY_CLASS[e.severity]}`}>{e.severity}</span>
              </td>
              <td className="px-2 py-1 font-mono">{subjectText(e)}</td>
              <td className="px-2 py-1">{e.actor ?? <span className="text-dim">—</span>}</td>
              <td className="px-2 py-1">
                <span className="font-semibold">{e.reason}</span> {e.message}
                {released && <span className="block text-dim">{released}</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
