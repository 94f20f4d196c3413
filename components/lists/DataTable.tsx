'use client';
import { type RowData, useTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRouter } from 'next/navigation';
import { type ReactNode, useDeferredValue, useMemo, useRef, useState } from 'react';
import { DataTableBody } from './DataTableBody';
import { DataTableHead, HEAD_HEIGHT } from './DataTableHead';
import {
  type ColumnSort,
  type DataColumn,
  defaultColumn,
  features,
  type RowActivation,
  searchableColumn,
  searchFilter,
} from './tableModel';
import { useColumnFilters } from './useColumnFilters';
import { useFillViewport } from './useFillViewport';

export const ROW_HEIGHT = 28;

export interface DataTableProps<T extends RowData> {
  /** the table's accessible name */
  label: string;
  /** column definitions; keep them stable (module scope or useMemo) */
  columns: readonly DataColumn<T>[];
  /** every row, unfiltered; keep the array stable between real changes (useMemo) */
  rows: readonly T[];
  /** a unique, stable id per row */
  rowKey: (row: T) => string;
  /** shown when no row is left (no data yet, or none matches) */
  empty: string;
  /** the sort on first render; a header's button sorts by its column, ascending, then flips it */
  initialSort?: ColumnSort;
  /** columns that order rows the sort leaves tied, always ascending (e.g. ['name']) */
  tieBreak?: readonly string[];
  /** global search query: every term must occur in one of `searchFields` (or any cell text) */
  search?: string;
  searchFields?: (row: T) => readonly (string | undefined)[];
  /** column filters by column id, for columns with a `filterFn`; undefined turns one off */
  filters?: Readonly<Record<string, unknown>>;
  /** makes rows focusable and clickable (Enter too; arrows move between rows) */
  onRowClick?: (row: T) => void;
  /** a row's page: clicking the row (or Enter on it) opens it; ctrl/cmd-click opens a new tab */
  rowHref?: (row: T) => string;
  /** toolbar content (title, search box, chips); the bar ends with the "N of M" count */
  toolbar?: ReactNode;
}

/**
 * A sortable, filterable table of any rows on TanStack Table, rendering only the rows in view
 * (TanStack Virtual, fixed row height) so 30 000 rows scroll smoothly. It fills the window down
 * to its bottom edge: the toolbar stays, the rows scroll under a sticky header.
 *
 * A new list: columns at module scope (`meta.width` is the CSS grid track; headers are strings;
 * every accessor column sorts, in natural order unless `sortFn: sortBy(compare)`; a column with
 * `filterFn: inSet` is filtered by a Set in `filters`), then
 *
 *   const col = columnsFor<Protector>();
 *   const columns = col.columns([
 *     col.accessor('name', { header: 'Name', meta: { width: 'minmax(160px,1fr)' } }),
 *     col.accessor('lag', { header: 'Lag', meta: { width: '80px', align: 'right' } }),
 *   ]);
 *   <DataTable label="Protectors" rows={rows} columns={columns} rowKey={(p) => p.uid}
 *     initialSort={{ id: 'name', desc: false }} empty="No protectors." search={query}
 *     rowHref={(p) => protectorHref(p)} toolbar={<><h1>Protectors</h1><SearchBox … /></>} />
 */
export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  const { rows, rowKey, searchFields, toolbar, label, empty } = props;
  const globalFilter = useDeferredValue(props.search ?? '');
  const columnFilters = useColumnFilters(props.filters);
  const [sort, setSort] = useState<ColumnSort | undefined>(props.initialSort);
  const tie = props.tieBreak?.join(' ') ?? '';
  const sorting = useMemo(() => withTieBreak(sort, tie), [sort, tie]);
  const table = useTable({
    features,
    columns: props.columns,
    data: rows,
    defaultColumn,
    getRowId: (row) => rowKey(row),
    state: { columnFilters, globalFilter, sorting },
    globalFilterFn: searchFilter(searchFields),
    getColumnCanGlobalFilter: searchableColumn,
  });
  const visible = table.getRowModel().rows;
  const rootRef = useRef<HTMLDivElement>(null);
  useFillViewport(rootRef);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    // the sticky header sits above the first row inside the scroller, and covers its top
    scrollMargin: HEAD_HEIGHT,
    scrollPaddingStart: HEAD_HEIGHT,
    useFlushSync: false,
  });
  const activate = useRowActivation(props.onRowClick, props.rowHref);
  const template = table
    .getAllLeafColumns()
    .map((c) => c.columnDef.meta?.width ?? '1fr')
    .join(' ');

  return (
    <div ref={rootRef} className="flex min-h-0 flex-none flex-col">
      {toolbar && (
        <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
          {toolbar}
          <span className="ml-auto text-xs text-dim">
            {visible.length} of {rows.length}
          </span>
        </div>
      )}
      <div ref={scrollRef} className="min-h-0 flex-1 overflow-auto text-sm">
        <table aria-label={label} aria-rowcount={visible.length + 1} className="block min-w-[720px]">
          <DataTableHead
            table={table}
            template={template}
            sort={sort}
            onSort={(id) => setSort(nextSort(sort, id))}
          />
          <DataTableBody
            rows={visible}
            virtualizer={virtualizer}
            template={template}
            rowHeight={ROW_HEIGHT}
            activate={activate}
          />
        </table>
        {visible.length === 0 && (
          <div className="p-6 text-center text-dim" role="status">
            {empty}
          </div>
        )}
      </div>
    </div>
  );
}

/** One column sorted at a time: a new column sorts ascending, the same one flips. */
function nextSort(cur: ColumnSort | undefined, id: string): ColumnSort {
  return cur?.id === id ? { id, desc: !cur.desc } : { id, desc: false };
}

/** TanStack's sorting state: the chosen column, then the tie-breakers, ascending. */
function withTieBreak(sort: ColumnSort | undefined, tie: string): ColumnSort[] {
  const ties = tie
    .split(' ')
    .filter((id) => id && id !== sort?.id)
    .map((id) => ({ id, desc: false }));
  return sort ? [sort, ...ties] : ties;
}

/** What a row click (or Enter) does: the caller's handler, else opening the row's page. */
function useRowActivation<T>(onRowClick?: (row: T) => void, rowHref?: (row: T) => string): RowActivation<T> {
  const router = useRouter();
  if (onRowClick) return (row) => onRowClick(row);
  if (!rowHref) return undefined;
  return (row, newTab) => {
    const href = rowHref(row);
    if (newTab) window.open(href, '_blank', 'noopener');
    else router.push(href);
  };
}
