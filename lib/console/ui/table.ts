// Search, comparison and filter-chip helpers for the console's lists (components/lists, which
// hand them to TanStack Table as its filter and sort functions). Pure.
import { type NodeDisplayState, POD_STATES } from './states';
import { naturalCompare } from './topology';

/** The lower-cased, whitespace-separated terms of a search query. */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Every term must occur in one of the fields (case-insensitive); no terms match everything. */
export function matchesTerms(fields: readonly (string | undefined)[], terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const hay = fields.filter(Boolean).join(' ').toLowerCase();
  return terms.every((t) => hay.includes(t));
}

/** Case-insensitive; every whitespace-separated term must match one of the fields. */
export function matchesSearch(fields: readonly (string | undefined)[], query: string): boolean {
  return matchesTerms(fields, searchTerms(query));
}

export type SortValue = string | number | undefined;

/** Ascending order: numbers numerically, everything else in natural order ("a1-2" before "a1-10"). */
export function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === undefined) return 1; // missing values last
  if (b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return naturalCompare(String(a), String(b));
}

/** Ascending order of the values by their place in `order`; values not in it go last. */
export function compareByRank<S extends string>(order: readonly S[]): (a: S, b: S) => number {
  const rank = new Map(order.map((s, i) => [s, i]));
  const of = (s: S) => rank.get(s) ?? order.length;
  return (a, b) => of(a) - of(b);
}

/** Nodes sort most urgent first: a node out of service before an unknown one, Ready ones last. */
export const NODE_STATE_ORDER: readonly NodeDisplayState[] = [
  'out-of-service',
  'unknown',
  'not-ready',
  'suspect',
  'cordoned',
  'ready',
];
export const compareNodeStates = compareByRank(NODE_STATE_ORDER);

/** Pods sort in the order of their filter chips: along their life, then the finished ones. */
export const comparePodStates = compareByRank(POD_STATES);

/** The set with `item` added, or removed if it was there (a filter chip's click). */
export function toggled<T>(set: ReadonlySet<T>, item: T): ReadonlySet<T> {
  const next = new Set(set);
  if (next.has(item)) next.delete(item);
  else next.add(item);
  return next;
}
