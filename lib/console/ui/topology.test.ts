import { describe, expect, it } from 'vitest';
import { groupByZoneRack, NO_RACK, NO_ZONE, naturalCompare, reuseGroups } from './topology';

const n = (name: string, zone: string, rack: string) => ({ name, zone, rack });

describe('groupByZoneRack', () => {
  it('groups and orders zones, racks and nodes naturally', () => {
    const g = groupByZoneRack([
      n('b1-2', 'zone-b', 'b1'),
      n('a1-10', 'zone-a', 'a1'),
      n('a1-2', 'zone-a', 'a1'),
      n('a2-1', 'zone-a', 'a2'),
      n('b1-1', 'zone-b', 'b1'),
    ]);
    expect(g.map((z) => [z.zone, z.count])).toEqual([
      ['zone-a', 3],
      ['zone-b', 2],
    ]);
    expect(g[0].racks.map((r) => [r.rack, r.nodes.map((x) => x.name)])).toEqual([
      ['a1', ['a1-2', 'a1-10']],
      ['a2', ['a2-1']],
    ]);
  });
  it('puts nodes without labels last', () => {
    const g = groupByZoneRack([n('x', '', ''), n('a', 'zone-a', 'r1'), n('y', 'zone-a', '')]);
    expect(g.map((z) => z.zone)).toEqual(['zone-a', NO_ZONE]);
    expect(g[0].racks.map((r) => r.rack)).toEqual(['r1', NO_RACK]);
  });
  it('handles no nodes', () => expect(groupByZoneRack([])).toEqual([]));
});

describe('naturalCompare', () => {
  it.each([
    ['a1-2', 'a1-10', -1],
    ['zone-b', 'zone-a', 1],
    ['n1', 'n1', 0],
  ] as const)('%s vs %s', (a, b, sign) => expect(Math.sign(naturalCompare(a, b))).toBe(sign));
});

describe('reuseGroups', () => {
  const node = (name: string, rack: string, zone = 'z') => ({ name, rack, zone });
  it('keeps the groups whose nodes are unchanged, and only those', () => {
    const a1 = node('a1-1', 'a1');
    const a2 = node('a2-1', 'a2');
    const b1 = node('b1-1', 'b1', 'y');
    const prev = groupByZoneRack([a1, a2, b1]);
    const a2new = { ...a2 };
    const next = reuseGroups(prev, groupByZoneRack([a1, a2new, b1]));
    const [py, pz] = prev;
    const [ny, nz] = next;
    expect(ny).toBe(py); // zone y untouched
    expect(nz).not.toBe(pz);
    expect(nz.racks[0]).toBe(pz.racks[0]); // rack a1 untouched
    expect(nz.racks[1]).not.toBe(pz.racks[1]);
    expect(nz.racks[1].nodes[0]).toBe(a2new);
  });

  it('sees added and removed nodes and racks', () => {
    const a1 = node('a1-1', 'a1');
    const prev = groupByZoneRack([a1]);
    const added = reuseGroups(prev, groupByZoneRack([a1, node('a1-2', 'a1')]));
    expect(added[0].racks[0].nodes.map((x) => x.name)).toEqual(['a1-1', 'a1-2']);
    const removed = reuseGroups(added, groupByZoneRack([]));
    expect(removed).toEqual([]);
    expect(reuseGroups(undefined, prev)).toBe(prev);
  });
});
