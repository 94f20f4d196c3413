// Applying socket snapshots and deltas to immutable collections the React Query cache holds.
// Pure. Unchanged items keep their object identity, and for pods the per-node arrays of
// nodes the delta did not touch keep theirs, so memoized tiles skip re-rendering.
import { type Delta, type Kind, type NodeView, type PodView, podKey, type Snapshot } from '../protocol';

export interface Collection<T> {
  cluster: string;
  kind: Kind;
  seq: number;
  byKey: ReadonlyMap<string, T>;
}

export interface PodCollection extends Collection<PodView> {
  /** pods per node name; unscheduled pods under '' */
  byNode: ReadonlyMap<string, readonly PodView[]>;
}

export type NodeCollection = Collection<NodeView>;

export const UNSCHEDULED = '';

export function nodeKeyOf(n: NodeView): string {
  return n.name;
}

export function nodesFromSnapshot(s: Snapshot<NodeView>): NodeCollection {
  return { cluster: s.cluster, kind: 'nodes', seq: s.seq, byKey: new Map(s.items.map((n) => [n.name, n])) };
}

export function podsFromSnapshot(s: Snapshot<PodView>): PodCollection {
  const byKey = new Map<string, PodView>();
  const byNode = new Map<string, PodView[]>();
  for (const p of s.items) {
    byKey.set(podKey(p), p);
    const n = p.node ?? UNSCHEDULED;
    let list = byNode.get(n);
    if (!list) byNode.set(n, (list = []));
    list.push(p);
  }
  return { cluster: s.cluster, kind: 'pods', seq: s.seq, byKey, byNode };
}

export type ApplyResult<C> = { ok: true; next: C } | { ok: false; reason: 'no-base' | 'gap' | 'mismatch' };

function check<C extends Collection<unknown>>(prev: C | undefined, d: Delta<unknown>): ApplyResult<C> | null {
  if (!prev) return { ok: false, reason: 'no-base' };
  if (prev.cluster !== d.cluster || prev.kind !== d.kind) return { ok: false, reason: 'mismatch' };
  if (d.fromSeq !== prev.seq) return { ok: false, reason: 'gap' };
  return null;
}

export function applyNodeDelta(
  prev: NodeCollection | undefined,
  d: Delta<NodeView>,
): ApplyResult<NodeCollection> {
  const bad = check(prev, d);
  if (bad || !prev) return bad ?? { ok: false, reason: 'no-base' };
  const byKey = new Map(prev.byKey);
  for (const n of d.upserts) byKey.set(n.name, n);
  for (const k of d.deletes) byKey.delete(k);
  return { ok: true, next: { ...prev, seq: d.seq, byKey } };
}

export function applyPodDelta(
  prev: PodCollection | undefined,
  d: Delta<PodView>,
): ApplyResult<PodCollection> {
  const bad = check(prev, d);
  if (bad || !prev) return bad ?? { ok: false, reason: 'no-base' };
  const byKey = new Map(prev.byKey);
  const touched = new Set<string>();
  for (const p of d.upserts) {
    const k = podKey(p);
    const old = byKey.get(k);
    if (old) touched.add(old.node ?? UNSCHEDULED);
    touched.add(p.node ?? UNSCHEDULED);
    byKey.set(k, p);
  }
  for (const k of d.deletes) {
    const old = byKey.get(k);
    if (!old) continue;
    touched.add(old.node ?? UNSCHEDULED);
    byKey.delete(k);
  }
  if (touched.size === 0) return { ok: true, next: { ...prev, seq: d.seq, byKey } };
  const byNode = new Map(prev.byNode);
  for (const n of touched) {
    const out: PodView[] = [];
    const seen = new Set<string>();
    // keep the existing order; updated pods take their old place
    for (const p of prev.byNode.get(n) ?? []) {
      const k = podKey(p);
      const cur = byKey.get(k);
      if (cur && (cur.node ?? UNSCHEDULED) === n && !seen.has(k)) {
        out.push(cur);
        seen.add(k);
      }
    }
    for (const p of d.upserts) {
      const k = podKey(p);
      if ((p.node ?? UNSCHEDULED) === n && !seen.has(k) && byKey.get(k) === p) {
        out.push(p);
        seen.add(k);
      }
    }
    if (out.length) byNode.set(n, out);
    else byNode.delete(n);
  }
  return { ok: true, next: { ...prev, seq: d.seq, byKey, byNode } };
}
