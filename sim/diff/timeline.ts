// What a client sees of a node and its pods over time, reduced to comparable sequences:
// each object's distinct states in the order they appeared (timing and repeats dropped),
// and the events about them as a set. Built from recorded watch streams after the fact.
import type { WatchRecorder } from './backends.js';
import { normalise } from './normalise.js';

type Ev = WatchRecorder['events'][number];

/** consecutive duplicates dropped: heartbeats and unrelated writes are not steps */
export function steps<T>(states: T[]): T[] {
  const out: T[] = [];
  for (const s of states) if (JSON.stringify(s) !== JSON.stringify(out.at(-1))) out.push(s);
  return out;
}

const cond = (o: any, type: string) => {
  const c = o?.status?.conditions?.find((x: any) => x.type === type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

/**
 * Ready condition and taints (timeAdded only as presence). The taints are sorted: the order
 * they came in is what the sequence of states shows; the list order follows from it.
 */
export function nodeState(n: any) {
  return {
    ready: cond(n, 'Ready'),
    taints: (n.spec?.taints ?? [])
      .map((t: any) => `${t.key}:${t.effect}${t.timeAdded ? ' @timeAdded' : ''}`)
      .sort() as string[],
  };
}

type NodeState = ReturnType<typeof nodeState>;
const effectOf = (t: string) => t.split(':')[1].split(' ')[0];

/**
 * `steps` and the sequences that differ from it only in which of a NoSchedule and a
 * NoExecute change came first, where both happen in one transition. kube-controller-manager
 * makes them in two loops (the NoSchedule pass on each node update, the NoExecute tainting
 * queue every 100 ms) and usually, but not always, the NoSchedule one is first.
 */
export function withEffectOrderSwapped(steps: NodeState[]): NodeState[][] {
  const out = [steps];
  for (let i = 1; i + 1 < steps.length; i++) {
    const [a, b, c] = [steps[i - 1], steps[i], steps[i + 1]];
    const diff = (x: NodeState, y: NodeState) => [
      ...x.taints.filter((t) => !y.taints.includes(t)),
      ...y.taints.filter((t) => !x.taints.includes(t)),
    ];
    const first = diff(a, b);
    const second = diff(b, c);
    const same = JSON.stringify(a.ready) === JSON.stringify(b.ready);
    if (!same || first.length !== 1 || second.length !== 1) continue;
    if (effectOf(first[0]) !== 'NoSchedule' || effectOf(second[0]) !== 'NoExecute') continue;
    const toggle = (ts: string[], t: string) =>
      ts.includes(t) ? ts.filter((x) => x !== t) : [...ts, t].sort();
    const middle = { ready: b.ready, taints: toggle(a.taints, second[0]) };
    out.push([...steps.slice(0, i), middle, ...steps.slice(i + 1)]);
  }
  return out;
}

export function podState(e: Ev) {
  const p = e.object;
  return {
    deleted: e.type === 'DELETED' || undefined,
    phase: p.status?.phase,
    ready: cond(p, 'Ready')?.status,
    disruptionTarget: cond(p, 'DisruptionTarget'),
    deletionTimestamp: p.metadata?.deletionTimestamp ? '<time>' : undefined,
    deletionGracePeriodSeconds: p.metadata?.deletionGracePeriodSeconds,
  };
}

export function nodeSteps(events: Ev[], name: string) {
  return steps(events.filter((e) => e.object?.metadata?.name === name).map((e) => nodeState(e.object)));
}

/** each pod's steps, as a sorted list keyed by its owner (generated names differ) */
export function podSteps(events: Ev[], uids: string[]) {
  const byPod = uids.map((uid) => {
    const mine = events.filter((e) => e.object?.metadata?.uid === uid);
    const owner = mine[0]?.object?.metadata?.ownerReferences?.[0]?.kind ?? 'none';
    return JSON.stringify({ owner, steps: steps(mine.map(podState)) });
  });
  return byPod.sort().map((s) => JSON.parse(s));
}

/** the events about these objects: who said what, once each, names normalised */
export function eventSet(
  events: Ev[],
  objects: Record<string, string>,
  about: (involved: any) => boolean = () => true,
) {
  const seen = new Set<string>();
  for (const e of events) {
    const x = e.object;
    const alias = objects[x?.involvedObject?.name];
    if (e.type !== 'ADDED' || !alias || !about(x.involvedObject)) continue;
    let message = normalise(x.message ?? '') as string;
    for (const [name, a] of Object.entries(objects)) message = message.split(name).join(a);
    const source = x.source?.component || x.reportingComponent;
    // which reference fields the event carries (some controllers name a pod without its uid)
    const ref = Object.keys(x.involvedObject).sort().join(',');
    seen.add(`${x.involvedObject.kind} ${alias} ${x.type} ${x.reason} [${source}] ${message} {${ref}}`);
  }
  return [...seen].sort();
}
