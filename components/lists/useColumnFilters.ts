'use client';
import type { ColumnFiltersState } from '@tanstack/react-table';
import { useRef } from 'react';

/**
 * TanStack's column-filter state from a `{ columnId: value }` record, undefined values left
 * out. The same array comes back while the values are the same (by identity), so a list can
 * pass a fresh record every render without re-filtering all its rows.
 */
export function useColumnFilters(filters: Readonly<Record<string, unknown>> | undefined): ColumnFiltersState {
  const last = useRef<ColumnFiltersState>([]);
  const next = Object.entries(filters ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([id, value]) => ({ id, value }));
  const prev = last.current;
  const same =
    prev.length === next.length && prev.every((f, i) => f.id === next[i].id && f.value === next[i].value);
  if (!same) last.current = next;
  return last.current;
}
