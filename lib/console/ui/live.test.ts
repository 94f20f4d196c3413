import { describe, expect, it } from 'vitest';
import type { Delta, NodeView, PodView } from '../protocol';
import { applyNodeDelta, applyPodDelta, nodesFromSnapshot, podsFromSnapshot } from './live';

const pod = (
  name: string,
  node: string | undefined,
  state: PodView['state'] = 'Ready',
  rv = '1',
): PodView => ({
  uid: name,
  namespace: 'ns',
  name,
  node,
  state,
  ready: state === 'Ready',
  claims: [],
  resourceVersion: rv,
});
const node = (name: string, rv = '1'): NodeView => ({
  name,
  zone: 'z',
  rack: 'r',
  ready: 'Ready',
  unschedulable: false,
  taints: [],
  conditions: [],
  capacity: {},
  resourceVersion: rv,
});
const delta = <T>(
  kind: 'nodes' | 'pods',
  fromSeq: number,
  upserts: T[],
  deletes: string[] = [],
): Delta<T> => ({
  cluster: 'c',
  kind,
  fromSeq,
  seq: fromSeq + 1,
  upserts,
  deletes,
});

describe('pods', () => {
  const snap = () =>
    podsFromSnapshot({
      cluster: 'c',
      kind: 'pods',
      seq: 5,
      items: [pod('a', 'n1'), pod('b', 'n1'), pod('c', 'n2'), pod('d', undefined, 'Pending')],
    });

  it('indexes a snapshot by key and node', () => {
    const s = snap();
    expect(s.byKey.size).toBe(4);
    expect(s.byNode.get('n1')?.map((p) => p.name)).toEqual(['a', 'b']);
    expect(s.byNode.get('')?.map((p) => p.name)).toEqual(['d']);
  });

  const cases: {
    name: string;
    d: Delta<PodView>;
    want: Record<string, string[]>;
    unchanged: string[];
  }[] = [
    {
      name: 'update in place keeps order and other nodes',
      d: delta('pods', 5, [pod('a', 'n1', 'Terminating', '2')]),
      want: { n1: ['a', 'b'], n2: ['c'], '': ['d'] },
      unchanged: ['n2', ''],
    },
    {
      name: 'scheduling moves a pod from unscheduled to its node',
      d: delta('pods', 5, [pod('d', 'n2', 'Running', '2')]),
      want: { n1: ['a', 'b'], n2: ['c', 'd'] },
      unchanged: ['n1'],
    },
    {
      name: 'delete removes it and drops empty nodes',
      d: delta('pods', 5, [], ['ns/c', 'ns/missing']),
      want: { n1: ['a', 'b'], '': ['d'] },
      unchanged: ['n1', ''],
    },
    {
      name: 'a new pod is appended',
      d: delta('pods', 5, [pod('e', 'n1', 'Pending')]),
      want: { n1: ['a', 'b', 'e'], n2: ['c'], '': ['d'] },
      unchanged: ['n2', ''],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const prev = snap();
      const r = applyPodDelta(prev, c.d);
      if (!r.ok) throw new Error(r.reason);
      expect(r.next.seq).toBe(6);
      expect(Object.fromEntries([...r.next.byNode].map(([k, v]) => [k, v.map((p) => p.name)]))).toEqual(
        c.want,
      );
      for (const n of c.unchanged) expect(r.next.byNode.get(n)).toBe(prev.byNode.get(n));
      expect(prev.byKey.size).toBe(4); // previous value untouched
    });

  it.each([
    ['gap', 4, 'gap'],
    ['other cluster', 5, 'mismatch'],
  ] as const)('refuses a delta with %s', (_n, fromSeq, reason) => {
    const d = { ...delta<PodView>('pods', fromSeq, []), cluster: reason === 'mismatch' ? 'other' : 'c' };
    expect(applyPodDelta(snap(), d)).toEqual({ ok: false, reason });
  });
  it('refuses a delta without a snapshot', () =>
    expect(applyPodDelta(undefined, delta('pods', 0, []))).toEqual({ ok: false, reason: 'no-base' }));
});

describe('nodes', () => {
  it('applies upserts and deletes, keeping unchanged objects', () => {
    const prev = nodesFromSnapshot({ cluster: 'c', kind: 'nodes', seq: 1, items: [node('a'), node('b')] });
    const r = applyNodeDelta(prev, delta('nodes', 1, [node('a', '2'), node('c')], ['b']));
    if (!r.ok) throw new Error(r.reason);
    expect([...r.next.byKey.keys()].sort()).toEqual(['a', 'c']);
    expect(r.next.byKey.get('a')?.resourceVersion).toBe('2');
    expect(r.next.seq).toBe(2);
  });
});
