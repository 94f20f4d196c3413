'use client';
// The fence on, or coming for, a volume's node, in its row and in the detail: "fence in
// progress on a2-1 (NodeFence a2-1 is Fencing): the volume is released after it", linking the
// Fencing page — so the commander waits for the fence rather than detaching by hand.
import Link from 'next/link';
import { fenceNoteText, type NodeFenceNote } from '@/lib/volumes/fenceNote';
import { useNow } from '../console/clock';
import type { VolumeRow } from './api';

export type FenceNotes = ReadonlyMap<string, NodeFenceNote>;

export const fenceNotesByNode = (notes: readonly NodeFenceNote[] | undefined): FenceNotes =>
  new Map((notes ?? []).map((n) => [n.node, n]));

export function FenceNoteLine({ note }: { note: NodeFenceNote }) {
  const now = useNow(1000) || Date.now();
  const text = fenceNoteText(note, now);
  if (!text) return null;
  return (
    <span data-testid="volume-fence" className="block text-info">
      {text} —{' '}
      <Link href="/fencing" className="underline">
        Fencing
      </Link>
    </span>
  );
}

/** The notes for the nodes a volume is attached to. */
export function RowFenceNotes({ row, notes }: { row: VolumeRow; notes: FenceNotes }) {
  const mine = [...new Set(row.attachments.map((a) => a.node))].flatMap((n) => notes.get(n) ?? []);
  return (
    <>
      {mine.map((n) => (
        <FenceNoteLine key={n.node} note={n} />
      ))}
    </>
  );
}
