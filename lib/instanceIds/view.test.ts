import { describe, expect, it } from 'vitest';
import { describeIdMap, type IdPod } from './view.js';

const pod = (name: string, extra: Partial<IdPod> = {}): IdPod => ({ name, node: 'n1', ...extra });

describe("the console's reading of a map", () => {
  it('a healthy map: every entry held by a live pod, nothing stale, no conflict', () => {
    const v = describeIdMap({ raw: '{"0":"a","1":"b"}', replicas: 3, pods: [pod('a'), pod('b'), pod('c')] });
    expect(v).toEqual({
      replicas: 3,
      valid: true,
      problems: [],
      entries: [
        { key: '0', id: 0, pod: 'a', node: 'n1', state: 'held' },
        { key: '1', id: 1, pod: 'b', node: 'n1', state: 'held' },
      ],
      stale: [],
      conflicts: [],
      free: [2],
      waiting: ['c'],
    });
  });

  it('stale entries: the pod is gone, terminating or finished', () => {
    const v = describeIdMap({
      raw: '{"0":"gone","1":"term","2":"done"}',
      replicas: 3,
      pods: [pod('term', { terminating: true }), pod('done', { finished: true }), pod('new')],
    });
    expect(v.entries.map((e) => [e.id, e.state])).toEqual([
      [0, 'gone'],
      [1, 'terminating'],
      [2, 'finished'],
    ]);
    expect(v.stale.map((e) => e.pod)).toEqual(['gone', 'term', 'done']);
    expect(v.free).toEqual([]);
    expect(v.waiting).toEqual(['new']);
    expect(v.conflicts).toEqual([]);
  });

  it('conflicts: two pods claiming one id, a pod with several ids, ids at or above the count', () => {
    const v = describeIdMap({
      raw: '{"0":"a","0":"b","1":"c","2":"c","5":"d"}',
      replicas: 3,
      pods: [pod('a'), pod('b'), pod('c'), pod('d')],
    });
    expect(v.valid).toBe(false);
    expect(v.problems).toEqual([
      'entry "0" is written 2 times: an id belongs to one pod',
      'pod "c" holds 2 ids (1, 2): a pod holds one',
    ]);
    expect(v.conflicts).toEqual([
      { kind: 'duplicate-id', id: '0', pods: ['a', 'b'], message: 'id 0 is written 2 times (a, b)' },
      { kind: 'several-ids', pod: 'c', ids: [1, 2], message: 'pod c holds 2 ids (1, 2)' },
      {
        kind: 'out-of-range',
        id: 5,
        pod: 'd',
        message: 'id 5 (d) is not below the replica count 3: released with the next write',
      },
    ]);
    expect(v.entries.find((e) => e.id === 5)?.state).toBe('out-of-range');
    expect(v.free).toEqual([]);
  });

  it('an unreadable map: the problem, entries marked invalid, nothing guessed', () => {
    const broken = describeIdMap({ raw: '{"0":"a"', replicas: 2, pods: [pod('a')] });
    expect(broken.valid).toBe(false);
    expect(broken.problems[0]).toMatch(/^it is not valid JSON/);
    expect(broken.entries).toEqual([]);
    const bad = describeIdMap({ raw: '{"x":"a","1":7}', replicas: 2, pods: [pod('a')] });
    expect(bad.entries).toEqual([
      { key: 'x', pod: 'a', state: 'invalid' },
      { key: '1', id: 1, state: 'invalid' },
    ]);
  });

  it('no map yet: every id free, every live pod waiting', () =>
    expect(
      describeIdMap({
        raw: undefined,
        replicas: 2,
        pods: [pod('b'), pod('a'), pod('t', { terminating: true })],
      }),
    ).toMatchObject({ valid: true, entries: [], free: [0, 1], waiting: ['a', 'b'] }));
});
