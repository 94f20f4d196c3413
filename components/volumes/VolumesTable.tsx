'use client';
// The volumes table: one row per PersistentVolume, riskiest first, the explanation on a line
// of its own under each row. A plain table rather than components/lists/DataTable: volumes are
// tens to hundreds (nothing to virtualize), rows are two lines tall, and each row carries its
// own test id and Detach control.
import type { KeyboardEvent } from 'react';
import type { VolumeRow } from './api';
import { RiskBadge } from './badges';
import { type FenceNotes, RowFenceNotes } from './fence';
import {
  AttachedCell,
  type DetachHandler,
  DetachButton,
  ForceDetachCell,
  primaryAttachment,
  UsersCell,
  WaitersCell,
  WritersCell,
} from './cells';

const MODE_SHORT: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadWriteOncePod: 'RWOP',
  ReadWriteMany: 'RWX',
  ReadOnlyMany: 'ROX',
};

const th = 'px-2 py-1.5 text-left text-xs font-medium text-dim whitespace-nowrap';
const td = 'px-2 py-1 align-top';

export function VolumesTable({
  rows,
  truth,
  selected,
  onSelect,
  onDetach,
  fences = new Map(),
}: {
  rows: readonly VolumeRow[];
  /** the fence on, or coming for, each node (by node name) */
  fences?: FenceNotes;
  /** show the ground-truth writers column (embedded cluster) */
  truth: boolean;
  selected?: string;
  onSelect: (pv: string) => void;
  onDetach?: DetachHandler;
}) {
  const open = (pv: string) => (e: KeyboardEvent) => {
    if (e.key === 'Enter' && e.target === e.currentTarget) onSelect(pv);
  };
  return (
    <table
      data-testid="volumes-table"
      aria-label="Volumes"
      className="w-full min-w-[1100px] border-collapse text-sm"
    >
      <thead className="sticky top-0 z-10 bg-panel">
        <tr className="border-b border-line">
          <th className={th}>State</th>
          <th className={th}>Volume</th>
          <th className={th}>Claim</th>
          <th className={th}>Attached to</th>
          <th className={th}>Used by</th>
          <th className={th}>Waiting (Multi-Attach age)</th>
          <th className={th}>Force detach</th>
          {truth && (
            <th className={th} title="Which nodes really write to it: the embedded cluster's ground truth">
              Writers <span className="font-normal text-info">(ground truth)</span>
            </th>
          )}
          <th className={th}>Detach</th>
        </tr>
      </thead>
      {rows.map((r) => (
        <tbody
          key={r.pv}
          className={`border-b border-line/70 ${r.pv === selected ? 'bg-info/8' : 'hover:bg-panel-2'}`}
        >
          <tr
            data-testid={`volume-row-${r.pv}`}
            data-risk={r.risk}
            tabIndex={0}
            aria-selected={r.pv === selected}
            onClick={(e) => !(e.target as HTMLElement).closest('button, a') && onSelect(r.pv)}
            onKeyDown={open(r.pv)}
            className="cursor-pointer focus-visible:outline-2 focus-visible:outline-info"
          >
            <td className={td}>
              <RiskBadge risk={r.risk} title={r.explanation} />
            </td>
            <td className={`${td} font-mono text-xs`}>
              {r.pv}
              <span className="ml-1 font-sans text-dim">
                {r.accessModes.map((m) => MODE_SHORT[m] ?? m).join(',')}
              </span>
            </td>
            <td className={`${td} font-mono text-xs`}>
              {r.claim ? `${r.claim.namespace}/${r.claim.name}` : <span className="text-dim">—</span>}
            </td>
            <td className={td}>
              <AttachedCell row={r} />
            </td>
            <td className={td}>
              <UsersCell row={r} />
            </td>
            <td className={td}>
              <WaitersCell row={r} />
            </td>
            <td className={td}>
              <ForceDetachCell row={r} />
            </td>
            {truth && (
              <td className={td}>
                <WritersCell row={r} />
              </td>
            )}
            <td className={td}>
              <DetachButton pv={r.pv} a={primaryAttachment(r)} onDetach={onDetach} />
            </td>
          </tr>
          <tr>
            <td />
            <td
              colSpan={truth ? 8 : 7}
              data-testid="volume-explanation"
              className={`px-2 pb-1.5 text-xs ${r.risk === 'ok' ? 'text-dim' : 'text-fg'}`}
            >
              {r.explanation}
              <RowFenceNotes row={r} notes={fences} />
            </td>
          </tr>
        </tbody>
      ))}
    </table>
  );
}
