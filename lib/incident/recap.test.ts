import { describe, expect, it } from 'vitest';
import type { IncidentCard } from './record.js';
import { lifecycleText, nodeRows, peopleText, quietText, workloadRows } from './recap.js';

const T = Date.parse('2026-11-30T04:54:08Z');
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const card = (more: Partial<IncidentCard> = {}): IncidentCard => ({
  name: 'inc-20261130-045408',
  title: 'zone-a down: 3/3 nodes; orders-db 1/3',
  severity: 'SEV1',
  startedAt: T,
  declaredBy: 'palisade',
  durationMs: 0,
  updates: [],
  nodes: [
    {
      name: 'a1-1',
      zone: 'zone-a',
      rack: 'a1',
      downAt: '2026-11-30T04:54:08Z',
      upAt: '2026-11-30T04:58:00Z',
    },
  ],
  workloads: [
    {
      kind: 'StatefulSet',
      namespace: 'shop',
      name: 'orders-db',
      desired: 3,
      lowest: 1,
      degradedAt: '2026-11-30T04:54:20Z',
    },
  ],
  ...more,
});

describe('the incident record in words', () => {
  it.each([
    ['open', card(), T + 251_000, 'open for 4 min 11 s, since 04:54:08'],
    [
      'resolved by Palisade',
      card({ resolvedAt: T + 251_000, resolvedBy: 'palisade', durationMs: 251_000 }),
      T + 999_000,
      'resolved at 04:58:19 by Palisade, lasted 4 min 11 s',
    ],
    [
      'resolved by a person',
      card({ resolvedAt: T + 60_000, resolvedBy: 'alice', durationMs: 60_000 }),
      T,
      'resolved at 04:55:08 by alice, lasted 1 min',
    ],
  ])('%s', (_, c, now, text) => expect(lifecycleText(c, now, clock)).toBe(text));

  it('says who declared it and who commands it', () => {
    expect(peopleText(card())).toBe('declared by Palisade · no commander yet');
    expect(peopleText(card({ declaredBy: 'alice', commander: 'bob' }))).toBe(
      'declared by alice · commander: bob',
    );
  });

  it('an open incident quiet again asks a person to resolve it; a resolved one does not', () => {
    expect(quietText(card({ healthySince: T + 60_000 }), T + 90_000, clock)).toBe(
      'healthy again since 04:55:08 (30 s): resolve it once you are satisfied',
    );
    expect(quietText(card({ healthySince: T, resolvedAt: T }), T, clock)).toBeUndefined();
    expect(quietText(card(), T, clock)).toBeUndefined();
  });

  it('each node and workload with how long it lasted, "so far" while it lasts', () => {
    expect(nodeRows(card(), T + 600_000)).toEqual([
      { what: 'a1-1', where: 'zone-a, rack a1', from: T, to: T + 232_000, lasted: '3 min 52 s' },
    ]);
    expect(workloadRows(card(), T + 72_000)).toEqual([
      { what: 'shop/orders-db', where: 'lowest 1/3 ready', from: T + 12_000, lasted: '1 min so far' },
    ]);
  });
});
