// The fences Palisade has announced and will run by itself unless someone acts: a NodeFence in its
// warning window (Detected, not cancelled), and an upcoming one (the node unhealthy, its NodeFence
// not created yet). The console's sticky bar, the incident view's first screen and the tiles all
// read this one list, so "3 fences in 8 s" and each Cancel button always agree. Pure.
import type { Phase } from './types.js';

export interface AnnouncedFenceRow {
  /** the NodeFence's name (the node's) */
  name: string;
  node: string;
  policy: string;
  fenceAt?: string;
  paused: boolean;
  status: { phase: Phase };
  spec: { cancelRequested?: unknown };
}

export interface UpcomingRow {
  node: string;
  policy: string;
  fenceAt: string;
  paused: boolean;
}

export interface Announced {
  node: string;
  /** what Cancel names: the NodeFence, or the node for an upcoming fence (cancelled before it exists) */
  fence: string;
  policy: string;
  /** ms since the epoch: when the agent may run; undefined when the window is unknown */
  fenceAt?: number;
  /** its policy is paused: the fence is held, not counting down */
  paused: boolean;
}

export interface AnnouncedSummary {
  /** soonest first, then by node; held ones last */
  items: Announced[];
  /** fences counting down (not held) */
  counting: number;
  /** when the soonest counting fence may run */
  nextAt?: number;
  /** fences a paused policy holds */
  held: number;
  /** policies with a fence counting down: what "Pause policy" offers */
  running: string[];
  /** paused policies holding a fence: what "Resume policy" offers */
  paused: string[];
}

const ms = (iso: string | undefined) => {
  const t = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(t) ? t : undefined;
};

const order = (a: Announced, b: Announced) =>
  Number(a.paused) - Number(b.paused) ||
  (a.fenceAt ?? Number.POSITIVE_INFINITY) - (b.fenceAt ?? Number.POSITIVE_INFINITY) ||
  a.node.localeCompare(b.node);

/** Every announced fence, one per node (an upcoming fence is the node's next incident: it wins). */
export function announcedFences(
  fences: readonly AnnouncedFenceRow[],
  upcoming: readonly UpcomingRow[],
): Announced[] {
  const byNode = new Map<string, Announced>();
  for (const f of fences)
    if (f.status.phase === 'Detected' && !f.spec.cancelRequested)
      byNode.set(f.node, {
        node: f.node,
        fence: f.name,
        policy: f.policy,
        fenceAt: ms(f.fenceAt),
        paused: f.paused,
      });
  for (const u of upcoming)
    byNode.set(u.node, {
      node: u.node,
      fence: u.node,
      policy: u.policy,
      fenceAt: ms(u.fenceAt),
      paused: u.paused,
    });
  return [...byNode.values()].sort(order);
}

const distinct = (xs: string[]) => [...new Set(xs)].sort();

export function summarize(items: readonly Announced[]): AnnouncedSummary {
  const counting = items.filter((a) => !a.paused);
  const times = counting.map((a) => a.fenceAt).filter((t): t is number => t !== undefined);
  return {
    items: [...items],
    counting: counting.length,
    nextAt: times.length ? Math.min(...times) : undefined,
    held: items.length - counting.length,
    running: distinct(counting.map((a) => a.policy)),
    paused: distinct(items.filter((a) => a.paused).map((a) => a.policy)),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Seconds left, rounded up (never "in 0 s" while the fence still waits); 0 once due. */
export function secondsLeft(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The bar's headline: "2 fences in 8 s (next: a1-2)", "1 fence due now", "3 fences held: …". */
export function announcedText(s: AnnouncedSummary, now: number): string {
  const parts: string[] = [];
  if (s.counting) {
    const next = s.items.find((a) => !a.paused && a.fenceAt === s.nextAt);
    const left = s.nextAt === undefined ? undefined : secondsLeft(s.nextAt, now);
    const when = left === undefined ? 'announced' : left === 0 ? 'due now' : `in ${left} s`;
    parts.push(
      `${plural(s.counting, 'fence')} ${when}${next && s.counting > 1 ? ` (next: ${next.node})` : ''}`,
    );
  }
  if (s.held)
    parts.push(
      `${plural(s.held, 'fence')} held: ${s.paused.length === 1 ? `policy ${s.paused[0]} is` : `policies ${s.paused.join(', ')} are`} paused`,
    );
  return parts.join('; ');
}
