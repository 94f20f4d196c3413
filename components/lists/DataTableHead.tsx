'use client';
import type { Header, RowData, Table } from '@tanstack/react-table';
import type { ColumnSort, Features } from './tableModel';

export const HEAD_HEIGHT = 32;

/**
 * The sticky header row: one sort button per sortable column, aria-sort on every one of them.
 * Only the chosen column counts as sorted; the tie-breakers behind it are not shown.
 */
export function DataTableHead<T extends RowData>({
  table,
  template,
  sort,
  onSort,
}: {
  table: Table<Features, T>;
  template: string;
  sort: ColumnSort | undefined;
  onSort: (columnId: string) => void;
}) {
  const headers = table.getHeaderGroups().at(-1)?.headers ?? [];
  return (
    <thead className="sticky top-0 z-10 block border-b border-line bg-panel">
      <tr
        aria-rowindex={1}
        className="grid items-center px-3"
        style={{ gridTemplateColumns: template, height: HEAD_HEIGHT }}
      >
        {headers.map((h) => (
          <HeadCell
            key={h.id}
            header={h}
            sorted={sort?.id === h.column.id ? (sort.desc ? 'desc' : 'asc') : false}
            onSort={onSort}
          />
        ))}
      </tr>
    </thead>
  );
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;
const ARROW = { asc: '▲', desc: '▼' } as const;

function HeadCell<T extends RowData>({
  header,
  sorted,
  onSort,
}: {
  header: Header<Features, T, unknown>;
  sorted: 'asc' | 'desc' | false;
  onSort: (columnId: string) => void;
}) {
  const column = header.column;
  const label = typeof column.columnDef.header === 'string' ? column.columnDef.header : column.id;
  const right = column.columnDef.meta?.align === 'right';
  const canSort = column.getCanSort();
  return (
    <th
      scope="col"
      aria-sort={canSort ? (sorted ? ARIA_SORT[sorted] : 'none') : undefined}
      className={`truncate pr-2 text-left text-xs font-semibold uppercase tracking-wide text-dim ${right ? 'text-right' : ''}`}
    >
      {canSort ? (
        <button
          type="button"
          onClick={() => onSort(column.id)}
          className={`uppercase hover:text-fg ${sorted ? 'text-fg' : ''}`}
          aria-label={`Sort by ${label}`}
        >
          {label}
          <span aria-hidden="true" className="ml-0.5 inline-block w-2">
            {sorted ? ARROW[sorted] : ''}
          </span>
        </button>
      ) : (
        label
      )}
    </th>
  );
}
