import { describe, expect, it } from 'vitest';
import { type PodFact, podEntries } from './entries.js';
import { matches } from './filter.js';
import { replayLayout, replayNodes } from './replay.js';
import { type HistoryEntry, historyEntry } from './types.js';

const T0 = Date.parse('2026-11-27T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const pod = (over: Partial<PodFact> = {}): PodFact => ({
  uid: 'u1',
  namespace: 'shop',
  name: 'orders-db-2',
  node: 'b2-1',
  createdAt: T0,
  owner: { kind: 'StatefulSet', name: 'orders-db' },
  ...over,
});
const facts = (es: HistoryEntry[]) => es.map((e) => [e.reason, e.at, e.details?.node]);

describe('podEntries: where a pod ran', () => {
  it.each<[string, PodFact | undefined, PodFact | undefined, number, unknown[]]>([
    ['listed on a node: bound since its creation', pod(), undefined, T0 + 60_000, [['Bound', at(0), 'b2-1']]],
    ['bound later: now', pod(), pod({ node: undefined }), T0 + 5_000, [['Bound', at(5), 'b2-1']]],
    ['not on a node yet: nothing', pod({ node: undefined }), undefined, T0, []],
    ['an update that moves nothing: nothing', pod(), pod(), T0 + 9_000, []],
    [
      'deletion asked (30 s of grace): terminating since the request',
      pod({ deletionTimestamp: T0 + 40_000, deletionGracePeriodSeconds: 30 }),
      pod(),
      T0 + 12_000,
      [['Terminating', at(10), 'b2-1']],
    ],
    ['deleted: gone now', undefined, pod(), T0 + 50_000, [['Deleted', at(50), 'b2-1']]],
    ['a pending pod deleted: nothing', undefined, pod({ node: undefined }), T0, []],
  ])('%s', (_, next, old, now, want) => {
    const es = podEntries('c1', next, old, now);
    expect(facts(es)).toEqual(want);
    for (const e of es) expect(historyEntry.safeParse(e).success).toBe(true);
  });

  it('one id per fact, whoever observes it, whenever', () => {
    const a = podEntries('c1', pod(), undefined, T0 + 1_000);
    const b = podEntries('c1', pod(), undefined, T0 + 9_000);
    expect(a.map((e) => e.id)).toEqual(b.map((e) => e.id));
    expect(a[0]).toMatchObject({
      kind: 'pod',
      subject: { kind: 'Pod', namespace: 'shop', name: 'orders-db-2', uid: 'u1' },
      message: 'pod shop/orders-db-2 runs on node b2-1',
      details: { node: 'b2-1', owner: 'StatefulSet/orders-db' },
    });
  });
});

describe('replay with pods', () => {
  const history = [
    ...podEntries('c1', pod(), undefined, T0),
    ...podEntries('c1', pod({ uid: 'u2', name: 'web-1', node: 'a1-1' }), undefined, T0),
    ...podEntries(
      'c1',
      pod({ deletionTimestamp: T0 + 40_000, deletionGracePeriodSeconds: 30 }),
      pod(),
      T0 + 10_000,
    ),
    ...podEntries('c1', undefined, pod(), T0 + 30_000),
    // the StatefulSet's replacement, same name, a new uid, on another node
    ...podEntries('c1', pod({ uid: 'u3', node: 'a1-2', createdAt: T0 + 31_000 }), undefined, T0 + 32_000),
  ];
  const podsAt = (s: number) =>
    Object.fromEntries(
      replayNodes('c1', history, at(s), ['a1-1', 'a1-2', 'b2-1']).nodes.map((n) => [
        n.node,
        (n.pods ?? []).map((p) => `${p.name}${p.terminating ? ' (terminating)' : ''}`),
      ]),
    );

  it.each([
    [5, { 'a1-1': ['web-1'], 'a1-2': [], 'b2-1': ['orders-db-2'] }],
    [20, { 'a1-1': ['web-1'], 'a1-2': [], 'b2-1': ['orders-db-2 (terminating)'] }],
    [30, { 'a1-1': ['web-1'], 'a1-2': [], 'b2-1': [] }],
    [40, { 'a1-1': ['web-1'], 'a1-2': ['orders-db-2'], 'b2-1': [] }],
  ])('at %d s', (s, want) => {
    expect(podsAt(s)).toEqual(want);
  });

  it('a newer pod of the same name replaces one whose deletion went unrecorded', () => {
    const ghosted = [
      ...podEntries('c1', pod({ uid: 'old', node: 'b2-1' }), undefined, T0),
      // the cluster rebuilt (or the console down): no Deleted for 'old'
      ...podEntries('c1', pod({ uid: 'new', node: 'a1-1', createdAt: T0 + 60_000 }), undefined, T0 + 60_000),
    ];
    const r = replayNodes('c1', ghosted, at(90), []);
    expect(r.nodes.flatMap((n) => (n.pods ?? []).map((p) => `${n.node}:${p.name}`))).toEqual([
      'a1-1:orders-db-2',
    ]);
  });

  it('reads entries in any order (the store gives each pod its last one)', () => {
    const last = replayNodes('c1', [...history].reverse(), at(40), []);
    expect(last.nodes.find((n) => n.node === 'a1-2')?.pods).toEqual([
      { namespace: 'shop', name: 'orders-db-2', terminating: false },
    ]);
  });
});

describe('the timeline without kinds', () => {
  it('leaves pod placements out unless asked for', () => {
    const [bound] = podEntries('c1', pod(), undefined, T0);
    const f = { cluster: 'c1', from: at(-10), to: at(10) };
    expect(matches(bound!, f)).toBe(false);
    expect(matches(bound!, { ...f, kinds: ['pod'] })).toBe(true);
  });
});

describe('replayLayout: the replay laid out as the map', () => {
  it('groups by zone, then rack, nodes gone since last', () => {
    const n = (node: string, zone?: string, rack?: string) => ({
      node,
      ready: 'Ready' as const,
      ...(zone ? { zone, rack } : {}),
    });
    const layout = replayLayout([
      n('b1-1', 'zone-b', 'b1'),
      n('gone-1'),
      n('a2-1', 'zone-a', 'a2'),
      n('a1-1', 'zone-a', 'a1'),
      n('a1-2', 'zone-a', 'a1'),
    ]);
    expect(layout.map((z) => [z.zone, z.racks.map((r) => [r.rack, r.nodes.map((x) => x.node)])])).toEqual([
      [
        'zone-a',
        [
          ['a1', ['a1-1', 'a1-2']],
          ['a2', ['a2-1']],
        ],
      ],
      ['zone-b', [['b1', ['b1-1']]]],
      ['', [['', ['gone-1']]]],
    ]);
  });
});
