// Seed 002's rules, as decisions over one read of the workload: which instance ID a pod gets,
// what the map becomes, and whether the write needs the live pods first. The server reads,
// asks here, and writes the answer conditionally on the resourceVersion it read (a lost race
// is a 409 and a new read), so these functions never see time or I/O.
//
// - A pod that already holds an id below the replica count keeps it.
// - Otherwise it takes the lowest free id in [0, replicas).
// - When none is free, the entries of pods known to have stopped are dropped, and the lowest
//   freed id is taken. Known to have stopped (lib/guard/stopped.ts, the rule that frees a
//   StatefulSet identity): not merely Terminating or gone from the API — its kubelet confirmed
//   the end from a Ready node, or its node is fenced, booted again or gone. Until then the pod
//   that asks waits, told whose holder is not confirmed and why. The holders are judged (their
//   pods, nodes and fences read live) only then.
// - Entries at or above the replica count (the workload was scaled down) are released with any
//   write.
// - A map that is not valid is never rewritten: the decision says so and what to do.
// - Release removes the pod's entry.
import type { StopVerdict } from '../guard/stopped.js';
import { idOf, parseIdMap, serializeIdMap } from './map.js';
import { INSTANCE_IDS_ANNOTATION, type WorkloadRef } from './types.js';

export interface Entry {
  id: number;
  pod: string;
}

export interface AcquireInput {
  /** the annotation's text (undefined: absent) */
  raw: string | undefined;
  replicas: number;
  /** the asking pod's name */
  pod: string;
  /**
   * Whether each pod the map names has stopped for sure (lib/guard/stopped.ts); a pod missing
   * here has not. Only needed when no id is free: without it such a decision is `needLive`.
   */
  holders?: ReadonlyMap<string, StopVerdict>;
}

/** An entry whose pod is not running as far as the API says, but not known to have stopped either. */
export interface Unconfirmed extends Entry {
  verdict: Extract<StopVerdict, { stopped: false }>;
}

export type AcquireDecision =
  /** `next`: the annotation to write, or undefined when nothing changes */
  | { kind: 'held'; id: number; next: string | undefined; released: Entry[] }
  | { kind: 'assigned'; id: number; next: string; released: Entry[]; dropped: Entry[] }
  /** every id in range is taken: judge the holders and decide again */
  | { kind: 'needLive' }
  | { kind: 'full'; holders: Entry[]; message: string }
  /** no id is free, and some holders may have stopped but nothing confirms it yet: wait for them */
  | { kind: 'wait'; holders: Entry[]; unconfirmed: Unconfirmed[]; message: string }
  | { kind: 'invalid'; problems: string[] };

export type ReleaseDecision =
  | { kind: 'released'; id: number; next: string; released: Entry[] }
  | { kind: 'notHeld' }
  | { kind: 'invalid'; problems: string[] };

const entries = (m: ReadonlyMap<number, string>): Entry[] =>
  [...m].map(([id, pod]) => ({ id, pod })).sort((a, b) => a.id - b.id);

/** Split off the entries at or above the replica count. */
function inRange(map: Map<number, string>, replicas: number) {
  const kept = new Map<number, string>();
  const released: Entry[] = [];
  for (const [id, pod] of map) {
    if (id < replicas) kept.set(id, pod);
    else released.push({ id, pod });
  }
  return { kept, released: released.sort((a, b) => a.id - b.id) };
}

function lowestFree(map: ReadonlyMap<number, string>, replicas: number): number | undefined {
  for (let id = 0; id < replicas; id++) if (!map.has(id)) return id;
  return undefined;
}

export function decideAcquire(input: AcquireInput): AcquireDecision {
  const parsed = parseIdMap(input.raw);
  if (!parsed.ok) return { kind: 'invalid', problems: parsed.problems };
  const replicas = Math.max(0, Math.floor(input.replicas));
  const { kept, released } = inRange(parsed.map, replicas);
  const own = idOf(kept, input.pod);
  if (own !== undefined)
    return { kind: 'held', id: own, next: released.length ? serializeIdMap(kept) : undefined, released };
  const free = lowestFree(kept, replicas);
  if (free !== undefined) {
    kept.set(free, input.pod);
    return { kind: 'assigned', id: free, next: serializeIdMap(kept), released, dropped: [] };
  }
  if (!input.holders) return { kind: 'needLive' };
  const { dropped, unconfirmed } = dropStopped(kept, input.holders);
  const freed = lowestFree(kept, replicas);
  if (freed === undefined) {
    if (replicas === 0)
      return {
        kind: 'full',
        holders: [],
        message: 'the workload has 0 replicas: there is no instance ID to give',
      };
    if (unconfirmed.length)
      return { kind: 'wait', holders: entries(kept), unconfirmed, message: waitMessage(unconfirmed) };
    return {
      kind: 'full',
      holders: entries(kept),
      message: `all ${replicas} instance IDs are held by live pods (${entries(kept)
        .map((e) => `${e.id}: ${e.pod}`)
        .join(', ')}); one is given back when its pod stops`,
    };
  }
  kept.set(freed, input.pod);
  return { kind: 'assigned', id: freed, next: serializeIdMap(kept), released, dropped };
}

/** Drop (from `kept`) the entries whose pods stopped for sure; say which others do not run but may. */
function dropStopped(kept: Map<number, string>, holders: ReadonlyMap<string, StopVerdict>) {
  const dropped: Entry[] = [];
  const unconfirmed: Unconfirmed[] = [];
  for (const [id, pod] of [...kept]) {
    const v = holders.get(pod);
    if (v?.stopped) {
      dropped.push({ id, pod });
      kept.delete(id);
    } else if (v && v.reason !== 'running') unconfirmed.push({ id, pod, verdict: v });
    else if (!v)
      unconfirmed.push({
        id,
        pod,
        verdict: { stopped: false, reason: 'node-unknown', text: `${pod}: nothing is known of it` },
      });
  }
  dropped.sort((a, b) => a.id - b.id);
  unconfirmed.sort((a, b) => a.id - b.id);
  return { dropped, unconfirmed };
}

/** "ID 0 held by metrics-…-b48lf on c2-2: node unreachable (Ready=Unknown), not fenced" */
export function unconfirmedWords(u: Unconfirmed): string {
  return `ID ${u.id} held by ${u.verdict.text}`;
}

function waitMessage(unconfirmed: Unconfirmed[]): string {
  return `every instance ID is held, and no holder that stopped running is confirmed stopped yet (${unconfirmed
    .map(unconfirmedWords)
    .join(
      '; ',
    )}): an ID is given back once its pod's kubelet confirms the end from a Ready node, or its node is fenced`;
}

export function decideRelease(input: {
  raw: string | undefined;
  replicas: number;
  pod: string;
}): ReleaseDecision {
  const parsed = parseIdMap(input.raw);
  if (!parsed.ok) return { kind: 'invalid', problems: parsed.problems };
  const own = idOf(parsed.map, input.pod);
  if (own === undefined) return { kind: 'notHeld' };
  const map = new Map(parsed.map);
  map.delete(own);
  const { kept, released } = inRange(map, Math.max(0, Math.floor(input.replicas)));
  return { kind: 'released', id: own, next: serializeIdMap(kept), released };
}

export type CollectDecision =
  | { kind: 'collected'; next: string; dropped: Entry[] }
  | { kind: 'clean' }
  | { kind: 'invalid'; problems: string[] };

/**
 * The collector's sweep (server/instanceIds/collector.ts): drop the entries whose pods stopped
 * for sure (judged after the map was read, so a pod that took an id in this map is judged as it
 * is now). Entries of running pods stay, in range or not: their pods ask again and move down.
 */
export function decideCollect(input: {
  raw: string | undefined;
  holders: ReadonlyMap<string, StopVerdict>;
}): CollectDecision {
  const parsed = parseIdMap(input.raw);
  if (!parsed.ok) return { kind: 'invalid', problems: parsed.problems };
  const kept = new Map(parsed.map);
  const { dropped } = dropStopped(kept, input.holders);
  if (!dropped.length) return { kind: 'clean' };
  return { kind: 'collected', next: serializeIdMap(kept), dropped };
}

const resourceOf: Record<WorkloadRef['kind'], string> = {
  Deployment: 'deployment',
  StatefulSet: 'statefulset',
  Job: 'job',
};

/** What to tell a person about a map Palisade will not touch: the problems, and how to fix it. */
export function invalidMapMessage(w: WorkloadRef, problems: string[]): string {
  const target = `${resourceOf[w.kind]}/${w.name} -n ${w.namespace}`;
  return (
    `the ${INSTANCE_IDS_ANNOTATION} annotation of ${w.kind} ${w.namespace}/${w.name} is not a valid instance-ID map: ` +
    `${problems.join('; ')}. Palisade does not rewrite a map it cannot read: correct it ` +
    `(kubectl annotate ${target} --overwrite ${INSTANCE_IDS_ANNOTATION}='{"0":"<pod name>"}'), ` +
    `or remove it to start over (kubectl annotate ${target} ${INSTANCE_IDS_ANNOTATION}-) and let the pods acquire again`
  );
}
