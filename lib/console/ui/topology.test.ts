import { describe, expect, it } from 'vitest';
import { groupByZoneRack, NO_RACK, NO_ZONE, naturalCompare } from './topology';

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
