// The timeline's shareable link: /timeline?cluster=…&from=<ISO>&to=<ISO>&kinds=a,b&q=…&incident=… —
// an absolute window, so the link shows the same entries whoever opens it, whenever; an incident
// named in it lays the window out in its lanes with its notes.
import { HISTORY_KINDS, type HistoryKind } from './types';

export const TIMELINE_PATH = '/timeline';
/** the window a link without from/to opens on: the last hour */
export const DEFAULT_WINDOW_MS = 3_600_000;

export interface TimelineView {
  cluster?: string;
  from: string;
  to: string;
  kinds: HistoryKind[];
  q: string;
  /** the replay's time T, when one is chosen */
  at?: string;
  /** the incident the window is about (inc-YYYYMMDD-HHMMSS): its lanes show its notes */
  incident?: string;
}

const INCIDENT_NAME = /^inc-\d{8}-\d{6}$/;

export type Decoded =
  | { ok: true; view: TimelineView }
  | { ok: false; errors: { field: string; message: string }[] };

export function encodeTimelineLink(v: TimelineView): string {
  const p = new URLSearchParams();
  if (v.cluster) p.set('cluster', v.cluster);
  p.set('from', v.from);
  p.set('to', v.to);
  if (v.kinds.length) p.set('kinds', v.kinds.join(','));
  if (v.q.trim()) p.set('q', v.q.trim());
  if (v.at) p.set('at', v.at);
  if (v.incident) p.set('incident', v.incident);
  return `${TIMELINE_PATH}?${p.toString()}`;
}

type FieldError = { field: string; message: string };

function time(p: URLSearchParams, field: string, fallback: number, errors: FieldError[]) {
  const raw = p.get(field);
  if (raw === null || raw === '') return new Date(fallback).toISOString();
  const ms = Date.parse(raw);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) {
    errors.push({
      field,
      message: `must be an ISO time like 2026-01-02T03:04:05Z, got ${JSON.stringify(raw)}`,
    });
    return '';
  }
  return new Date(ms).toISOString();
}

/** The view a link asks for; a missing window is the hour before `now`. */
export function decodeTimelineLink(search: string | URLSearchParams, now: number): Decoded {
  const p = typeof search === 'string' ? new URLSearchParams(search.replace(/^[^?]*\?/, '')) : search;
  const errors: FieldError[] = [];
  const to = time(p, 'to', now, errors);
  const from = time(p, 'from', (Date.parse(to) || now) - DEFAULT_WINDOW_MS, errors);
  const at = p.get('at') ? time(p, 'at', now, errors) : undefined;
  const kinds = (p.get('kinds') ?? '').split(',').filter(Boolean);
  const unknown = kinds.filter((k) => !(HISTORY_KINDS as readonly string[]).includes(k));
  if (unknown.length)
    errors.push({
      field: 'kinds',
      message: `unknown kind(s) ${unknown.join(', ')}: use ${HISTORY_KINDS.join(', ')}`,
    });
  const incident = p.get('incident') || undefined;
  if (incident && !INCIDENT_NAME.test(incident))
    errors.push({
      field: 'incident',
      message: `must be an incident name like inc-20261130-045408, got ${JSON.stringify(incident)}`,
    });
  if (!errors.length && Date.parse(from) > Date.parse(to))
    errors.push({ field: 'to', message: 'must not be before from' });
  if (errors.length) return { ok: false, errors };
  const cluster = p.get('cluster') || undefined;
  return {
    ok: true,
    view: {
      ...(cluster ? { cluster } : {}),
      from,
      to,
      kinds: kinds as HistoryKind[],
      q: p.get('q') ?? '',
      ...(at ? { at } : {}),
      ...(incident ? { incident } : {}),
    },
  };
}
