// What the instance-IDs page filters its workloads by. Pure, and imported by the browser: no
// runtime imports.
import type { IdMapView } from './view.js';

/** A row may be several at once ('ok' only alone). */
export type RowFlag = 'conflict' | 'stale' | 'waiting' | 'ok';
export const ROW_FLAGS: readonly RowFlag[] = ['conflict', 'stale', 'waiting', 'ok'];

export function rowFlags(
  r: Pick<IdMapView, 'valid' | 'conflicts' | 'stale' | 'waiting'> & {
    duplicates?: { id: number; pods: string[] }[];
  },
): Set<RowFlag> {
  const flags = new Set<RowFlag>();
  if (!r.valid || r.conflicts.length > 0 || (r.duplicates?.length ?? 0) > 0) flags.add('conflict');
  if (r.stale.length > 0) flags.add('stale');
  if (r.waiting.length > 0) flags.add('waiting');
  if (flags.size === 0) flags.add('ok');
  return flags;
}
