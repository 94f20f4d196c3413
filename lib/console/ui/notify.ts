// Browser notifications for fences (issue 25, item 3): a commander whose console sits in a
// background tab learns that Palisade announced a fence (it runs by itself unless someone
// cancels it inside the warning window) or that one is held (a paused policy, or the fencing
// budget), without watching the tab. Pure: which notices a new reading of the fencing list
// brings, against the keys seen at the reading before. The first reading of a page only sets
// the baseline: opening the console never replays what its bar already shows.
import { type Announced, secondsLeft } from '../../fencing/announced';

/** a node whose fence the fencing budget holds (fencing.list's `held`) */
export interface BudgetHeld {
  node: string;
  why: string;
}

export type NoticeKind = 'announced' | 'paused' | 'budget';

export interface Notice {
  kind: NoticeKind;
  node: string;
  /** one per node: a held notice replaces the announcement it follows */
  tag: string;
  title: string;
  body: string;
}

export interface NoticeReading {
  notices: Notice[];
  /** what the next reading compares with */
  seen: Set<string>;
}

/**
 * The notices of a reading. A key names what is new: a node's counting fence (its time may move
 * as the upcoming fence becomes a NodeFence: not news; gone and announced again, for a new
 * incident: news), a paused policy's hold, a budget hold.
 */
export function fenceNotices(
  seen: ReadonlySet<string> | undefined,
  cluster: string,
  announced: readonly Announced[],
  held: readonly BudgetHeld[],
  now: number,
  clock: (ms: number) => string,
): NoticeReading {
  const all = [
    ...announced.map((a) => (a.paused ? pausedNotice(cluster, a) : announcedNotice(cluster, a, now, clock))),
    ...held.map((h) => budgetNotice(cluster, h)),
  ];
  const next = new Set(all.map(([key]) => key));
  if (!seen) return { notices: [], seen: next };
  return { notices: all.filter(([key]) => !seen.has(key)).map(([, n]) => n), seen: next };
}

const tagOf = (cluster: string, node: string) => `palisade-fence/${cluster}/${node}`;

function announcedNotice(cluster: string, a: Announced, now: number, clock: (ms: number) => string) {
  const left = a.fenceAt === undefined ? undefined : secondsLeft(a.fenceAt, now);
  const when = left === undefined ? 'announced' : left === 0 ? 'due now' : `in ${left} s`;
  const at = a.fenceAt === undefined ? 'when its warning window ends' : `at ${clock(a.fenceAt)}`;
  const n: Notice = {
    kind: 'announced',
    node: a.node,
    tag: tagOf(cluster, a.node),
    title: `Fence of ${a.node} ${when}`,
    body: `Policy ${a.policy} fences ${a.node} (cluster ${cluster}) ${at} unless someone cancels it. Open Palisade to cancel or pause.`,
  };
  return [`announced/${cluster}/${a.node}`, n] as const;
}

function pausedNotice(cluster: string, a: Announced) {
  const n: Notice = {
    kind: 'paused',
    node: a.node,
    tag: tagOf(cluster, a.node),
    title: `Fence of ${a.node} held: policy paused`,
    body: `Policy ${a.policy} is paused (cluster ${cluster}): ${a.node} stays unfenced until someone resumes the policy or fences it by hand.`,
  };
  return [`paused/${cluster}/${a.node}/${a.policy}`, n] as const;
}

function budgetNotice(cluster: string, h: BudgetHeld) {
  const n: Notice = {
    kind: 'budget',
    node: h.node,
    tag: tagOf(cluster, h.node),
    title: `Fence of ${h.node} held by the fencing budget`,
    body: `${h.why} (cluster ${cluster}). Fence now, with the node's name typed, overrides the budget.`,
  };
  return [`budget/${cluster}/${h.node}`, n] as const;
}
