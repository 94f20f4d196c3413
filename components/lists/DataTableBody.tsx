'use client';
import type { RowData } from '@tanstack/react-table';
import type { Virtualizer } from '@tanstack/react-virtual';
import type { KeyboardEvent, MouseEvent, ReactNode } from 'react';
import type { RowActivation, TableRow } from './tableModel';

/**
 * The body as tall as all rows, with only the rows in view (plus a few) in the DOM, absolutely
 * positioned. Clickable rows are focusable: Enter opens, arrows, Home and End move between rows.
 */
export function DataTableBody<T extends RowData>({
  rows,
  virtualizer,
  template,
  rowHeight,
  activate,
}: {
  rows: TableRow<T>[];
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  template: string;
  rowHeight: number;
  activate: RowActivation<T>;
}) {
  const margin = virtualizer.options.scrollMargin;
  const onKeyDown = activate
    ? (e: KeyboardEvent<HTMLElement>) => moveFocus(e, virtualizer, rows.length)
    : undefined;
  return (
    <tbody className="relative block" style={{ height: virtualizer.getTotalSize() }} onKeyDown={onKeyDown}>
      {virtualizer.getVirtualItems().map((item) => {
        const row = rows[item.index];
        if (!row) return null;
        const open = activate
          ? (e: MouseEvent | KeyboardEvent, newTab: boolean) => {
              if (!fromControl(e)) activate(row.original, newTab);
            }
          : undefined;
        return (
          <tr
            key={row.id}
            data-index={item.index}
            aria-rowindex={item.index + 2}
            tabIndex={open ? 0 : undefined}
            onClick={open && ((e) => open(e, e.ctrlKey || e.metaKey))}
            onKeyDown={open && ((e) => e.key === 'Enter' && open(e, e.ctrlKey || e.metaKey))}
            className={`absolute top-0 right-0 left-0 grid items-center border-b border-line/60 px-3 hover:bg-panel-2 ${
              open
                ? 'cursor-pointer focus-visible:bg-panel-2 focus-visible:outline-2 focus-visible:outline-info'
                : ''
            }`}
            style={{
              gridTemplateColumns: template,
              height: rowHeight,
              transform: `translateY(${item.start - margin}px)`,
            }}
          >
            {row.getAllCells().map((cell) => (
              <td
                key={cell.id}
                className={`truncate pr-2 ${cell.column.columnDef.meta?.align === 'right' ? 'text-right' : ''}`}
              >
                {cellContent(cell.column.columnDef.cell, cell.getContext())}
              </td>
            ))}
          </tr>
        );
      })}
    </tbody>
  );
}

/**
 * A cell's content, its renderer called as a function rather than mounted as a component. Lists
 * make their columns again whenever the live data the renderers close over changes (the nodes
 * change with every heartbeat, several times a second), and mounted as components, each new
 * renderer would replace every cell's DOM: a click whose press and release straddle that is
 * lost. So cell renderers must not call hooks (put those in a component they render).
 */
function cellContent<P>(render: ((props: P) => unknown) | ReactNode | undefined, props: P): ReactNode {
  return (typeof render === 'function' ? render(props) : (render ?? null)) as ReactNode;
}

/** A click or Enter on a link, button or input inside the row is that control's, not the row's. */
function fromControl(e: MouseEvent | KeyboardEvent): boolean {
  const control = (e.target as HTMLElement).closest('a, button, input, select, textarea, label');
  return !!control && e.currentTarget.contains(control);
}

const STEP: Record<string, (i: number, n: number) => number> = {
  ArrowDown: (i, n) => Math.min(n - 1, i + 1),
  ArrowUp: (i) => Math.max(0, i - 1),
  Home: () => 0,
  End: (_i, n) => n - 1,
};

/** Arrow keys on a focused row: scroll the next one into view, then focus it once rendered. */
function moveFocus(
  e: KeyboardEvent<HTMLElement>,
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  n: number,
) {
  const step = STEP[e.key];
  const from = (e.target as HTMLElement).closest('tr');
  if (!step || !from || from !== e.target) return;
  e.preventDefault();
  const to = step(Number(from.dataset.index), n);
  virtualizer.scrollToIndex(to, { align: 'auto' });
  const body = e.currentTarget;
  const focus = (tries: number) => {
    const el = body.querySelector<HTMLElement>(`tr[data-index="${to}"]`);
    if (el) el.focus({ preventScroll: true });
    else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
  };
  focus(10);
}
