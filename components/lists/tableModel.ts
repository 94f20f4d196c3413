// The TanStack Table set-up every list shares: which features run (column filters, a global
// search, single-column sorting), the column layout meta, and adapters from the pure
// comparators and searches of lib/console/ui/table to TanStack's sort and filter functions.
import {
  type ColumnDef,
  type ColumnHelper,
  type ColumnSort,
  columnFilteringFeature,
  constructSortFn,
  createColumnHelper,
  createFilteredRowModel,
  createSortedRowModel,
  type FilterFn,
  globalFilteringFeature,
  metaHelper,
  type Row,
  type RowData,
  rowSortingFeature,
  tableFeatures,
} from '@tanstack/react-table';
import { compareValues, matchesTerms, searchTerms } from '@/lib/console/ui/table';

/** How a column lays out: its CSS grid track (e.g. '1fr', '90px', 'minmax(120px,1fr)'). */
export interface ColumnLayout {
  width: string;
  align?: 'right';
}

export const features = tableFeatures({
  columnFilteringFeature,
  globalFilteringFeature,
  filteredRowModel: createFilteredRowModel(),
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  columnMeta: metaHelper<ColumnLayout>(),
});
export type Features = typeof features;

export type DataColumn<T extends RowData> = ColumnDef<Features, T, any>;
export type TableRow<T extends RowData> = Row<Features, T>;
export type { ColumnSort };

/** What a row click (or Enter on a focused row) does; undefined: rows are not clickable. */
export type RowActivation<T> = ((row: T, newTab: boolean) => void) | undefined;

/** A typed column helper for rows of T: `const col = columnsFor<Pod>()`, then `col.accessor(...)`. */
export function columnsFor<T extends RowData>(): ColumnHelper<Features, T> {
  return createColumnHelper<Features, T>();
}

/** A TanStack sort function from an ascending comparator of the columns' values. */
export function sortBy<V>(compare: (a: V, b: V) => number) {
  return constructSortFn({ sort: (a: V, b: V) => compare(a, b) });
}

/** Every column's default: natural order; missing values last in both directions. */
export const defaultColumn = {
  sortFn: sortBy(compareValues),
  sortUndefined: 'last' as const,
} satisfies Partial<DataColumn<any>>;

/** A column filter keeping rows whose value is in the set; an empty set keeps every row. */
export const inSet: FilterFn<Features, any> = (row, id, set: ReadonlySet<unknown>) =>
  set.size === 0 || set.has(row.getValue(id));

/**
 * The global filter: every term of the query must occur in one of the row's search fields.
 * TanStack asks each searchable column and keeps a row when one says yes; the terms may match
 * different fields, so one column (the first: see `searchableColumn`) answers for the row.
 */
export function searchFilter<T extends RowData>(
  fields: ((row: T) => readonly (string | undefined)[]) | undefined,
): FilterFn<Features, T> {
  const fn: FilterFn<Features, T> = (row, _id, terms: string[]) =>
    matchesTerms(fields ? fields(row.original) : cellTexts(row), terms);
  fn.resolveFilterValue = (query: string) => searchTerms(query);
  return fn;
}

/** Without search fields: the text of every column's value (no cells built: 30 000 rows). */
function cellTexts<T extends RowData>(row: TableRow<T>): string[] {
  const out: string[] = [];
  for (const c of row.table.getAllLeafColumns()) {
    const v = row.getValue(c.id);
    if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
  }
  return out;
}

/** Only the first column takes part in the global filter; `searchFilter` looks at the whole row. */
export function searchableColumn(column: {
  id: string;
  table: { getAllLeafColumns: () => { id: string }[] };
}) {
  return column.id === column.table.getAllLeafColumns()[0]?.id;
}
