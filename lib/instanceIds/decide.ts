// Seed 002's rules, as decisions over one read of the workload: which instance ID a pod gets,
// what the map becomes, and whether the write needs the live pods first. The server reads,
// asks here, and writes the answer conditionally on the resourceVersion it read (a lost race
// is a 409 and a new read), so these functions never see time or I/O.
//
// - A pod that already holds an id below the replica count keeps it.
// - Otherwise it takes the lowest free id in [0, replicas).
// - When none is free, entries of pods that no longer exist, are terminating or have finished
//   are dropped, and the lowest freed id is taken. The live pods are read only then.
// - Entries at or above the replica count (the workload was scaled down) are released with any
//   write.
// - A map that is not valid is never rewritten: the decision says so and what to do.
// - Release removes the pod's entry.
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
   * Names of the workload's pods that exist, are not terminating and have not finished. Only
   * needed when no id is free: without it such a decision is `needLive`.
   */
  live?: ReadonlySet<string>;
}

export type AcquireDecision =
  /** `next`: the annotation to write, or undefined when nothing changes */
  | { kind: 'held'; id: number; next: string | undefined; released: Entry[] }
  | { kind: 'assigned'; id: number; next: string; released: Entry[]; dropped: Entry[] }
  /** every id in range is taken: read the live pods and decide again */
  | { kind: 'needLive' }
  | { kind: 'full'; holders: Entry[]; message: string }
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
  if (!input.live) return { kind: 'needLive' };
  const dropped: Entry[] = [];
  for (const [id, pod] of kept)
    if (!input.live.has(pod)) {
      dropped.push({ id, pod });
      kept.delete(id);
    }
  const freed = lowestFree(kept, replicas);
  if (freed === undefined)
    return {
      kind: 'full',
      holders: entries(kept),
      message:
        replicas === 0
          ? 'the workload has 0 replicas: there is no instance ID to give'
          : `all ${replicas} instance IDs are held by live pods (${entries(kept)
              .map((e) => `${e.id}: ${e.pod}`)
              .join(', ')}); one is given back when its pod stops`,
    };
  kept.set(freed, input.pod);
  return {
    kind: 'assigned',
    id: freed,
    next: serializeIdMap(kept),
    released,
    dropped: dropped.sort((a, b) => a.id - b.id),
  };
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
 * The collector's sweep (server/instanceIds/collector.ts): drop the entries whose pods are not
 * live (`live` read after the map, so a pod that took an id in this map is in it unless it went).
 * Entries of live pods stay, in range or not: their pods ask again and move down.
 */
export function decideCollect(input: {
  raw: string | undefined;
  live: ReadonlySet<string>;
}): CollectDecision {
  const parsed = parseIdMap(input.raw);
  if (!parsed.ok) return { kind: 'invalid', problems: parsed.problems };
  const kept = new Map(parsed.map);
  const dropped: Entry[] = [];
  for (const [id, pod] of parsed.map)
    if (!input.live.has(pod)) {
      dropped.push({ id, pod });
      kept.delete(id);
    }
  if (!dropped.length) return { kind: 'clean' };
  return { kind: 'collected', next: serializeIdMap(kept), dropped: dropped.sort((a, b) => a.id - b.id) };
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
