// What the timeline asks the store for: a cluster, an absolute window, some kinds, free text.
// The same predicate runs in memory (tests, the merged audit) as the store runs in SQL.
import { z } from 'zod';
import { HISTORY_KINDS, type HistoryEntry, type HistoryKind, historyKind } from './types';

export const MAX_TIMELINE_LIMIT = 5000;
/**
 * The kinds a filter without kinds asks for: all but pod placements, which are there for replay
 * (one per pod start, end and move: boot alone writes one per pod) and shown when asked for.
 */
export const DEFAULT_KINDS: readonly HistoryKind[] = HISTORY_KINDS.filter((k) => k !== 'pod');
export const DEFAULT_TIMELINE_LIMIT = 1000;

const isoTime = z.iso.datetime({ offset: true, error: 'must be an ISO time like 2026-01-02T03:04:05Z' });

export const timelineFilter = z
  .strictObject({
    cluster: z.string().min(1, 'cluster id is required'),
    from: isoTime,
    to: isoTime,
    kinds: z.array(historyKind).max(HISTORY_KINDS.length).optional(),
    // PostgreSQL text cannot hold NUL: refused here, with the field named, not a 500 from the store
    q: z
      .string()
      .max(200, 'q is longer than 200 characters')
      .refine((q) => !q.includes('\u0000'), 'must not contain a NUL character')
      .optional(),
    limit: z.number().int().min(1).max(MAX_TIMELINE_LIMIT).default(DEFAULT_TIMELINE_LIMIT),
  })
  .refine((f) => Date.parse(f.from) <= Date.parse(f.to), {
    path: ['to'],
    message: 'must not be before from',
  });
export type TimelineFilter = z.input<typeof timelineFilter>;
export type ParsedTimelineFilter = z.output<typeof timelineFilter>;

/** The text the q filter searches, lower case. */
export function searchText(e: HistoryEntry): string {
  const s = e.subject;
  return [e.message, e.reason, e.actor, s.kind, s.namespace, s.name, e.kind].join('\n').toLowerCase();
}

export function matches(e: HistoryEntry, f: Omit<ParsedTimelineFilter, 'limit'>): boolean {
  const at = Date.parse(e.at);
  if (e.cluster !== f.cluster || at < Date.parse(f.from) || at > Date.parse(f.to)) return false;
  if (!(f.kinds?.length ? f.kinds : DEFAULT_KINDS).includes(e.kind as HistoryKind)) return false;
  const q = f.q?.trim().toLowerCase();
  return !q || searchText(e).includes(q);
}

/** Newest first; the same order the store answers in (ties by id, so pages are stable). */
export function byNewest(a: HistoryEntry, b: HistoryEntry): number {
  return Date.parse(b.at) - Date.parse(a.at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function selectTimeline(entries: HistoryEntry[], filter: TimelineFilter): HistoryEntry[] {
  const f = timelineFilter.parse(filter);
  return entries
    .filter((e) => matches(e, f))
    .sort(byNewest)
    .slice(0, f.limit);
}
