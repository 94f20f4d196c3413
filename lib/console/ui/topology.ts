// Grouping nodes into zones and racks for the cluster map. Pure.
import type { NodeView } from '../protocol';

export interface RackGroup<N> {
  rack: string;
  nodes: N[];
}
export interface ZoneGroup<N> {
  zone: string;
  racks: RackGroup<N>[];
  count: number;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Natural order: a1-2 before a1-10. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b);
}

export const NO_ZONE = '(no zone)';
export const NO_RACK = '(no rack)';

/** Zones, then racks, then nodes, each in natural order; missing labels grouped last. */
export function groupByZoneRack<N extends Pick<NodeView, 'name' | 'zone' | 'rack'>>(
  nodes: Iterable<N>,
): ZoneGroup<N>[] {
  const zones = new Map<string, Map<string, N[]>>();
  for (const n of nodes) {
    const z = n.zone || NO_ZONE;
    const r = n.rack || NO_RACK;
    let racks = zones.get(z);
    if (!racks) zones.set(z, (racks = new Map()));
    let list = racks.get(r);
    if (!list) racks.set(r, (list = []));
    list.push(n);
  }
  const order = (a: string, b: string, none: string) =>
    a === none ? 1 : b === none ? -1 : naturalCompare(a, b);
  return [...zones.entries()]
    .sort(([a], [b]) => order(a, b, NO_ZONE))
    .map(([zone, racks]) => {
      const rackGroups = [...racks.entries()]
        .sort(([a], [b]) => order(a, b, NO_RACK))
        .map(([rack, list]) => ({ rack, nodes: list.sort((x, y) => naturalCompare(x.name, y.name)) }));
      return { zone, racks: rackGroups, count: rackGroups.reduce((s, r) => s + r.nodes.length, 0) };
    });
}

const sameItems = <T>(a: readonly T[], b: readonly T[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * `next`, with every rack (and zone) whose nodes are the very same objects as in `prev`
 * replaced by prev's group, so memoized racks skip re-rendering when a delta touched
 * other nodes only (a Lease renewal changes one node at a time).
 */
export function reuseGroups<N>(
  prev: readonly ZoneGroup<N>[] | undefined,
  next: ZoneGroup<N>[],
): ZoneGroup<N>[] {
  if (!prev) return next;
  const old = new Map(prev.map((z) => [z.zone, z]));
  return next.map((z) => {
    const pz = old.get(z.zone);
    if (!pz) return z;
    const oldRacks = new Map(pz.racks.map((r) => [r.rack, r]));
    const racks = z.racks.map((r) => {
      const pr = oldRacks.get(r.rack);
      return pr && sameItems(pr.nodes, r.nodes) ? pr : r;
    });
    return sameItems(racks, pz.racks) ? pz : { ...z, racks };
  });
}
