'use client';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type SortSpec, visibleRange } from '@/lib/console/ui/table';

export interface Column<T, K extends string> {
  key: K;
  label: string;
  /** CSS grid track, e.g. '1fr' or '90px' */
  width: string;
  sortable?: boolean;
  align?: 'right';
  render: (row: T) => ReactNode;
}

export const ROW_HEIGHT = 28;

/** A table that renders only the rows in view (fixed row height), so 30 000 rows scroll smoothly. */
export function VirtualTable<T, K extends string>({
  rows,
  columns,
  sort,
  onSort,
  rowKey,
  label,
  empty,
}: {
  rows: readonly T[];
  columns: Column<T, K>[];
  sort: SortSpec<K>;
  onSort: (key: K) => void;
  rowKey: (row: T) => string;
  label: string;
  empty: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setView({ top: el.scrollTop, height: el.clientHeight }));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('scroll', update);
      ro.disconnect();
    };
  }, []);
  const { from, to } = visibleRange(view.top, view.height, ROW_HEIGHT, rows.length);
  const template = columns.map((c) => c.width).join(' ');
  // Real table elements laid out as grids: the body is as tall as all rows, only the visible
  // rows exist in the DOM, absolutely positioned.
  return (
    <div ref={ref} className="min-h-0 flex-1 overflow-auto text-sm">
      <table aria-label={label} aria-rowcount={rows.length + 1} className="block min-w-[720px]">
        <thead className="sticky top-0 z-10 block border-b border-line bg-panel">
          <tr
            className="grid items-center px-3"
            style={{ gridTemplateColumns: template, height: ROW_HEIGHT + 4 }}
          >
            {columns.map((c) => {
              const active = sort.key === c.key;
              const ariaSort = active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
              return (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={c.sortable ? ariaSort : undefined}
                  className={`truncate pr-2 text-left text-xs font-semibold uppercase tracking-wide text-dim ${c.align === 'right' ? 'text-right' : ''}`}
                >
                  {c.sortable ? (
                    <button
                      type="button"
                      onClick={() => onSort(c.key)}
                      className={`uppercase hover:text-fg ${active ? 'text-fg' : ''}`}
                      aria-label={`Sort by ${c.label}`}
                    >
                      {c.label}
                      <span aria-hidden="true" className="ml-0.5 inline-block w-2">
                        {active ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
                      </span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className="relative block" style={{ height: Math.max(rows.length * ROW_HEIGHT, 0) }}>
          {rows.slice(from, to).map((r, i) => (
            <tr
              key={rowKey(r)}
              aria-rowindex={from + i + 2}
              className="absolute right-0 left-0 grid items-center border-b border-line/60 px-3 hover:bg-panel-2"
              style={{ gridTemplateColumns: template, height: ROW_HEIGHT, top: (from + i) * ROW_HEIGHT }}
            >
              {columns.map((c) => (
                <td key={c.key} className={`truncate pr-2 ${c.align === 'right' ? 'text-right' : ''}`}>
                  {c.render(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && (
        <div className="p-6 text-center text-dim" role="status">
          {empty}
        </div>
      )}
    </div>
  );
}

export function FilterChips<S extends string>({
  states,
  active,
  onToggle,
  label,
  counts,
  dot,
  names,
}: {
  states: readonly S[];
  active: ReadonlySet<S>;
  onToggle: (s: S) => void;
  label: string;
  counts: Record<S, number>;
  dot: Record<S, string>;
  names?: Record<S, string>;
}) {
  return (
    <fieldset className="flex flex-wrap items-center gap-1">
      <legend className="sr-only">{label}</legend>
      {states.map((s) => (
        <button
          key={s}
          type="button"
          aria-pressed={active.has(s)}
          aria-label={`Filter ${names?.[s] ?? s} (${counts[s]})`}
          onClick={() => onToggle(s)}
          className={`flex items-center gap-1 rounded border px-1.5 py-0.5 text-xs ${
            active.has(s) ? 'border-info bg-info/15 text-fg' : 'border-line text-dim hover:text-fg'
          }`}
        >
          <span className={`inline-block h-2 w-2 rounded-sm ${dot[s]}`} aria-hidden="true" />
          {names?.[s] ?? s}
          <span className="tabular-nums">{counts[s]}</span>
        </button>
      ))}
    </fieldset>
  );
}

export function SearchBox({
  value,
  onChange,
  placeholder,
  label,
}: {
  value: string;
  onChange: (v: string) => void;
  placeholder: string;
  label: string;
}) {
  return (
    <input
      data-search
      type="search"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={`${placeholder}  /`}
      aria-label={label}
      className="w-72 rounded border border-line bg-panel px-2 py-1 text-sm"
    />
  );
}
