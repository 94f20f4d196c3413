// The timeline's lanes (issue 25, item 6): one incident's history laid out on a time axis the way a
// postmortem reads it — a lane per node (its Ready state over time, the faults injected into it),
// per fence (its phases), per workload (below or at its desired replicas) and per person (what
// each one did: guarded actions and the incident's status updates, the notes). Built from the
// history entries of a window alone; a state before the first entry in the window is not guessed.
// Pure.
import type { IncidentUpdate } from '../incident/record.js';
import type { HistoryEntry } from './types.js';

export const LANE_GROUPS = ['nodes', 'fences', 'workloads', 'people'] as const;
export type LaneGroup = (typeof LANE_GROUPS)[number];

/** A state held from `from` to `to` (ms, clipped to the window). */
export interface Span {
  from: number;
  to: number;
  /** Ready, NotReady, Unknown; a fence phase; BelowDesired, AtDesired */
  state: string;
  /** the entry's message that began it */
  text: string;
}

/** One moment: a fault, an action, an update. */
export interface Mark {
  at: number;
  id: string;
  /** InfraPowerOff, cancelFence, Status... */
  code: string;
  text: string;
}

export interface Lane {
  group: LaneGroup;
  /** node name, fence name, "Kind ns/name", a person */
  key: string;
  spans: Span[];
  marks: Mark[];
}

export interface LaneWindow {
  from: number;
  to: number;
}

type Builder = { spans: { at: number; state: string; text: string }[]; marks: Mark[] };

function spansOf(b: Builder, w: LaneWindow): Span[] {
  const steps = [...b.spans].sort((x, y) => x.at - y.at);
  return steps
    .map((s, i) => ({
      from: Math.max(w.from, s.at),
      to: Math.min(w.to, steps[i + 1]?.at ?? w.to),
      state: s.state,
      text: s.text,
    }))
    .filter((s) => s.to > s.from);
}

const workloadKey = (e: HistoryEntry) =>
  `${e.subject.kind} ${e.subject.namespace ? `${e.subject.namespace}/` : ''}${e.subject.name}`;

/** Which lane an entry goes in, and whether it is a state (span) or a moment (mark). */
function place(e: HistoryEntry): { group: LaneGroup; key: string; span: boolean } | undefined {
  switch (e.kind) {
    case 'node-condition':
      return { group: 'nodes', key: e.subject.name, span: true };
    case 'fault': {
      const node = typeof e.details?.node === 'string' ? e.details.node : e.subject.name;
      return e.subject.kind === 'Node' || typeof e.details?.node === 'string'
        ? { group: 'nodes', key: node, span: false }
        : undefined;
    }
    case 'fence-step':
    case 'fence-cancel':
      return { group: 'fences', key: e.subject.name, span: true };
    case 'workload':
      return { group: 'workloads', key: workloadKey(e), span: true };
    case 'guarded-action':
      return e.actor ? { group: 'people', key: e.actor, span: false } : undefined;
    default:
      return undefined;
  }
}

const markCode = (e: HistoryEntry) => {
  const verb = e.details?.verb ?? e.details?.action;
  return typeof verb === 'string' ? verb : e.reason;
};

/**
 * The lanes of a window: nodes, fences, workloads and people, each group sorted by key.
 * `updates`: the incident's status updates (its notes), shown on their author's lane.
 */
export function lanesOf(
  entries: readonly HistoryEntry[],
  w: LaneWindow,
  updates: readonly IncidentUpdate[] = [],
): Lane[] {
  const lanes = new Map<string, Builder & { group: LaneGroup; key: string }>();
  const lane = (group: LaneGroup, key: string) => {
    const id = `${group}\u0000${key}`;
    const l = lanes.get(id) ?? { group, key, spans: [], marks: [] };
    lanes.set(id, l);
    return l;
  };
  for (const e of entries) {
    const at = Date.parse(e.at);
    if (Number.isNaN(at) || at > w.to) continue;
    const p = place(e);
    if (!p) continue;
    const l = lane(p.group, p.key);
    if (p.span) l.spans.push({ at, state: e.reason, text: e.message });
    else if (at >= w.from) l.marks.push({ at, id: e.id, code: markCode(e), text: e.message });
  }
  for (const u of updates) {
    const at = Date.parse(u.at);
    if (Number.isNaN(at) || at < w.from || at > w.to) continue;
    lane('people', u.by).marks.push({
      at,
      id: `update:${u.at}:${u.by}:${u.kind}`,
      code: u.kind,
      text: u.text,
    });
  }
  const order = (g: LaneGroup) => LANE_GROUPS.indexOf(g);
  return [...lanes.values()]
    .map((l) => ({
      group: l.group,
      key: l.key,
      spans: spansOf(l, w),
      marks: [...l.marks].sort((a, b) => a.at - b.at),
    }))
    .filter((l) => l.spans.length || l.marks.length)
    .sort((a, b) => order(a.group) - order(b.group) || a.key.localeCompare(b.key, 'en', { numeric: true }));
}

/** Where `t` falls on the window, 0..1 (for a position on the axis). */
export function axisFraction(t: number, w: LaneWindow): number {
  if (w.to <= w.from) return 0;
  return Math.min(1, Math.max(0, (t - w.from) / (w.to - w.from)));
}
