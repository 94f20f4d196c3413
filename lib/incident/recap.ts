// The incident record's words (issue 25): its state in one line ("open for 4 min 11 s, since
// 04:54:08", "resolved at 04:58:00, lasted 4 min 11 s"), who declared and commands it, and the
// recap's rows — each node down and each workload short, from when to when and for how long.
// The page formats clock times in the viewer's zone. Pure.
import { durationWords, type IncidentCard, TRACKER } from './record';

type Clock = (ms: number) => string;

/** "Palisade" for the tracker, else the person's name */
export const who = (name: string) => (name === TRACKER ? 'Palisade' : name);

export function lifecycleText(c: IncidentCard, now: number, clock: Clock): string {
  if (c.resolvedAt !== undefined)
    return `resolved at ${clock(c.resolvedAt)}${c.resolvedBy ? ` by ${who(c.resolvedBy)}` : ''}, lasted ${durationWords(c.durationMs)}`;
  return `open for ${durationWords(now - c.startedAt)}, since ${clock(c.startedAt)}`;
}

export function peopleText(c: IncidentCard): string {
  return `declared by ${who(c.declaredBy)} · ${c.commander ? `commander: ${c.commander}` : 'no commander yet'}`;
}

/** an open incident the tracker leaves to a person, quiet again */
export function quietText(c: IncidentCard, now: number, clock: Clock): string | undefined {
  if (c.resolvedAt !== undefined || c.healthySince === undefined) return undefined;
  return `healthy again since ${clock(c.healthySince)} (${durationWords(now - c.healthySince)}): resolve it once you are satisfied`;
}

export interface SpanRow {
  what: string;
  where?: string;
  from: number;
  to?: number;
  /** "3 min 2 s", or "3 min 2 s so far" while it lasts */
  lasted: string;
}

const span = (from: number, to: number | undefined, now: number) =>
  to === undefined ? `${durationWords(now - from)} so far` : durationWords(to - from);

export function nodeRows(c: IncidentCard, now: number): SpanRow[] {
  return c.nodes.map((n) => {
    const from = Date.parse(n.downAt);
    const to = n.upAt ? Date.parse(n.upAt) : undefined;
    const where = [n.zone, n.rack && `rack ${n.rack}`].filter(Boolean).join(', ');
    return {
      what: n.name,
      ...(where ? { where } : {}),
      from,
      ...(to !== undefined ? { to } : {}),
      lasted: span(from, to, now),
    };
  });
}

export function workloadRows(c: IncidentCard, now: number): SpanRow[] {
  return c.workloads.map((w) => {
    const from = Date.parse(w.degradedAt);
    const to = w.restoredAt ? Date.parse(w.restoredAt) : undefined;
    return {
      what: `${w.namespace}/${w.name}`,
      where: `lowest ${w.lowest}/${w.desired} ready`,
      from,
      ...(to !== undefined ? { to } : {}),
      lasted: span(from, to, now),
    };
  });
}
