// Filtering and sorting for the node and pod lists. Pure.
import { naturalCompare } from './topology';

export type SortDir = 'asc' | 'desc';
export interface SortSpec<K extends string> {
  key: K;
  dir: SortDir;
}

export type Accessor<T> = (row: T) => string | number | undefined;

/** Case-insensitive; every whitespace-separated term must match one of the fields. */
export function matchesSearch(fields: readonly (string | undefined)[], query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const hay = fields.filter(Boolean).join(' ').toLowerCase();
  return terms.every((t) => hay.includes(t));
}

export function compareValues(a: string | number | undefined, b: string | number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1; // missing values last
  if (b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return naturalCompare(String(a), String(b));
}

/** Stable sort by one column; ties broken by `tieBreak`. Missing values go last in both directions. */
export function sortRows<T, K extends string>(
  rows: readonly T[],
  spec: SortSpec<K>,
  accessors: Record<K, Accessor<T>>,
  tieBreak?: Accessor<T>,
): T[] {
  const get = accessors[spec.key];
  const sign = spec.dir === 'asc' ? 1 : -1;
  return rows
    .map((r, i) => ({ r, i, v: get(r) }))
    .sort((x, y) => {
      if (x.v === undefined || y.v === undefined) {
        const c = compareValues(x.v, y.v);
        if (c !== 0) return c;
      } else {
        const c = compareValues(x.v, y.v) * sign;
        if (c !== 0) return c;
      }
      if (tieBreak) {
        const t = compareValues(tieBreak(x.r), tieBreak(y.r));
        if (t !== 0) return t;
      }
      return x.i - y.i;
    })
    .map((x) => x.r);
}

export function toggleSort<K extends string>(cur: SortSpec<K>, key: K): SortSpec<K> {
  if (cur.key !== key) return { key, dir: 'asc' };
  return { key, dir: cur.dir === 'asc' ? 'desc' : 'asc' };
}

/** Visible row window for a virtualized list of fixed-height rows. */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { from: number; to: number } {
  const from = Math.min(count, Math.max(0, Math.floor(scrollTop / rowHeight) - overscan));
  const to = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { from, to: Math.max(from, to) };
}

/** The set with `item` added, or removed if it was there (a filter chip's click). */
export function toggled<T>(set: ReadonlySet<T>, item: T): ReadonlySet<T> {
  const next = new Set(set);
  if (next.has(item)) next.delete(item);
  else next.add(item);
  return next;
}
