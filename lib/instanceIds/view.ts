// The console's reading of one workload's instance-ID map against its pods: each entry's state
// (held by a live pod, or stale: the pod is gone, terminating or finished, or the id is at or
// above the replica count), the conflicts (two pods claiming one id, a pod holding several ids,
// ids out of range), the free ids and the live pods still without one. Pure.
import { isValidId, parseIdMap } from './map.js';

export interface IdPod {
  name: string;
  uid?: string;
  node?: string;
  terminating?: boolean;
  /** its phase is Succeeded or Failed */
  finished?: boolean;
}

export type EntryState = 'held' | 'gone' | 'terminating' | 'finished' | 'out-of-range' | 'invalid';

export interface IdEntryView {
  /** the key as written */
  key: string;
  id?: number;
  /** the value as written, when it is text */
  pod?: string;
  state: EntryState;
  node?: string;
}

export type IdConflict =
  | { kind: 'duplicate-id'; id: string; pods: string[]; message: string }
  | { kind: 'several-ids'; pod: string; ids: number[]; message: string }
  | { kind: 'out-of-range'; id: number; pod: string; message: string };

export interface IdMapView {
  replicas: number;
  /** the map can be used as it is (no problems) */
  valid: boolean;
  /** why it cannot, when it cannot (Palisade will not rewrite it) */
  problems: string[];
  entries: IdEntryView[];
  /** entries whose pod is gone, terminating or finished: dropped (when the map is full, or by the collector) once the pod is known to have stopped */
  stale: IdEntryView[];
  conflicts: IdConflict[];
  /** ids in [0, replicas) that no entry holds */
  free: number[];
  /** live pods of the workload that hold no id */
  waiting: string[];
}

export const STALE_STATES: ReadonlySet<EntryState> = new Set(['gone', 'terminating', 'finished']);

export function describeIdMap(input: {
  raw: string | undefined;
  replicas: number;
  /** the workload's pods as the console sees them */
  pods: readonly IdPod[];
}): IdMapView {
  const parsed = parseIdMap(input.raw);
  const replicas = Math.max(0, Math.floor(input.replicas));
  const pods = new Map(input.pods.map((p) => [p.name, p]));
  const entries: IdEntryView[] = parsed.entries.map((e) => {
    const pod = typeof e.pod === 'string' ? e.pod : undefined;
    const base = { key: e.key, ...(e.id !== undefined ? { id: e.id } : {}), ...(pod ? { pod } : {}) };
    if (e.id === undefined || !pod || !isValidId(e.key)) return { ...base, state: 'invalid' as const };
    const p = pods.get(pod);
    const node = p?.node ? { node: p.node } : {};
    if (!p) return { ...base, state: 'gone' as const };
    if (p.terminating) return { ...base, ...node, state: 'terminating' as const };
    if (p.finished) return { ...base, ...node, state: 'finished' as const };
    if (e.id >= replicas) return { ...base, ...node, state: 'out-of-range' as const };
    return { ...base, ...node, state: 'held' as const };
  });
  const conflicts: IdConflict[] = [];
  const byKey = new Map<string, IdEntryView[]>();
  for (const e of entries) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  for (const [key, list] of byKey)
    if (list.length > 1) {
      const claimants = [...new Set(list.map((e) => e.pod ?? '?'))];
      conflicts.push({
        kind: 'duplicate-id',
        id: key,
        pods: claimants,
        message: `id ${key} is written ${list.length} times (${claimants.join(', ')})`,
      });
    }
  const idsOf = new Map<string, number[]>();
  for (const e of entries)
    if (e.pod && e.id !== undefined) idsOf.set(e.pod, [...(idsOf.get(e.pod) ?? []), e.id]);
  for (const [pod, ids] of idsOf) {
    const distinct = [...new Set(ids)].sort((a, b) => a - b);
    if (distinct.length > 1)
      conflicts.push({
        kind: 'several-ids',
        pod,
        ids: distinct,
        message: `pod ${pod} holds ${distinct.length} ids (${distinct.join(', ')})`,
      });
  }
  for (const e of entries)
    if (e.id !== undefined && e.pod && e.id >= replicas)
      conflicts.push({
        kind: 'out-of-range',
        id: e.id,
        pod: e.pod,
        message: `id ${e.id} (${e.pod}) is not below the replica count ${replicas}: released with the next write`,
      });
  const held = new Set(entries.filter((e) => e.id !== undefined).map((e) => e.id!));
  const free: number[] = [];
  for (let id = 0; id < replicas; id++) if (!held.has(id)) free.push(id);
  const named = new Set(entries.map((e) => e.pod));
  const waiting = input.pods
    .filter((p) => !p.terminating && !p.finished && !named.has(p.name))
    .map((p) => p.name)
    .sort();
  return {
    replicas,
    valid: parsed.ok,
    problems: parsed.problems,
    entries,
    stale: entries.filter((e) => STALE_STATES.has(e.state)),
    conflicts,
    free,
    waiting,
  };
}
