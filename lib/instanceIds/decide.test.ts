import { describe, expect, it } from 'vitest';
import {
  type AcquireDecision,
  decideAcquire,
  decideCollect,
  decideRelease,
  invalidMapMessage,
} from './decide.js';

import type { StopVerdict } from '../guard/stopped.js';

const RUNNING: StopVerdict = { stopped: false, reason: 'running', text: 'runs' };
const STOPPED: StopVerdict = { stopped: true, reason: 'removed-by-kubelet', text: 'removed' };
/** the named pods run; every other name in `gone` stopped for sure */
const live = (...names: string[]) => judged(names, ['a', 'b', 'c', 'x', 'y', 'gone']);
function judged(running: string[], all: string[]): Map<string, StopVerdict> {
  return new Map(all.map((n) => [n, running.includes(n) ? RUNNING : STOPPED]));
}

describe('acquiring an instance ID', () => {
  const cases: [string, Parameters<typeof decideAcquire>[0], AcquireDecision][] = [
    [
      'the first pod of a workload with no map takes 0',
      { raw: undefined, replicas: 3, pod: 'a' },
      { kind: 'assigned', id: 0, next: '{"0":"a"}', released: [], dropped: [] },
    ],
    [
      'an empty map: 0',
      { raw: '{}', replicas: 1, pod: 'a' },
      { kind: 'assigned', id: 0, next: '{"0":"a"}', released: [], dropped: [] },
    ],
    [
      'the lowest free id, not the next after the highest',
      { raw: '{"0":"a","2":"c"}', replicas: 3, pod: 'b' },
      { kind: 'assigned', id: 1, next: '{"0":"a","1":"b","2":"c"}', released: [], dropped: [] },
    ],
    [
      'a pod that holds an id keeps it, and nothing is written',
      { raw: '{"0":"a","1":"b"}', replicas: 3, pod: 'b' },
      { kind: 'held', id: 1, next: undefined, released: [] },
    ],
    [
      'every id held: the live pods are needed before anything is dropped',
      { raw: '{"0":"a","1":"b"}', replicas: 2, pod: 'c' },
      { kind: 'needLive' },
    ],
    [
      'every id held: the entry of a pod that no longer exists is dropped and its id taken',
      { raw: '{"0":"a","1":"b"}', replicas: 2, pod: 'c', holders: live('b', 'c') },
      { kind: 'assigned', id: 0, next: '{"0":"c","1":"b"}', released: [], dropped: [{ id: 0, pod: 'a' }] },
    ],
    [
      'several stale entries are all dropped; the lowest freed id is taken',
      { raw: '{"0":"a","1":"b","2":"x"}', replicas: 3, pod: 'c', holders: live('x', 'c') },
      {
        kind: 'assigned',
        id: 0,
        next: '{"0":"c","2":"x"}',
        released: [],
        dropped: [
          { id: 0, pod: 'a' },
          { id: 1, pod: 'b' },
        ],
      },
    ],
    [
      'every id held by a live pod: full, saying who holds what',
      { raw: '{"0":"a","1":"b"}', replicas: 2, pod: 'c', holders: live('a', 'b', 'c') },
      {
        kind: 'full',
        holders: [
          { id: 0, pod: 'a' },
          { id: 1, pod: 'b' },
        ],
        message:
          'all 2 instance IDs are held by live pods (0: a, 1: b); one is given back when its pod stops',
      },
    ],
    [
      'zero replicas: there is nothing to give',
      { raw: '{}', replicas: 0, pod: 'a', holders: live('a') },
      {
        kind: 'full',
        holders: [],
        message: 'the workload has 0 replicas: there is no instance ID to give',
      },
    ],
    [
      'scaled down: entries at or above the replica count are released with the write',
      { raw: '{"0":"a","3":"d","4":"e"}', replicas: 2, pod: 'b' },
      {
        kind: 'assigned',
        id: 1,
        next: '{"0":"a","1":"b"}',
        released: [
          { id: 3, pod: 'd' },
          { id: 4, pod: 'e' },
        ],
        dropped: [],
      },
    ],
    [
      'scaled down: a pod keeping its id below the count still writes the released ones away',
      { raw: '{"0":"a","5":"f"}', replicas: 2, pod: 'a' },
      { kind: 'held', id: 0, next: '{"0":"a"}', released: [{ id: 5, pod: 'f' }] },
    ],
    [
      'scaled down: a pod whose own id is now out of range takes a new one in range',
      { raw: '{"0":"a","2":"c"}', replicas: 2, pod: 'c' },
      { kind: 'assigned', id: 1, next: '{"0":"a","1":"c"}', released: [{ id: 2, pod: 'c' }], dropped: [] },
    ],
    [
      'scaled up: the new ids are free',
      { raw: '{"0":"a","1":"b"}', replicas: 4, pod: 'c' },
      { kind: 'assigned', id: 2, next: '{"0":"a","1":"b","2":"c"}', released: [], dropped: [] },
    ],
    [
      'a fractional or negative count is read as Kubernetes would never write it: floored, at least 0',
      { raw: '{}', replicas: 1.7, pod: 'a' },
      { kind: 'assigned', id: 0, next: '{"0":"a"}', released: [], dropped: [] },
    ],
  ];
  it.each(cases)('%s', (_what, input, decision) => expect(decideAcquire(input)).toEqual(decision));

  it('issue 23: a holder Terminating on an unreachable node keeps its ID; the new pod waits, told why', () => {
    const unreachable: StopVerdict = {
      stopped: false,
      reason: 'node-unreachable',
      text: 'metrics-b48lf on c2-2: node unreachable (Ready=Unknown), not fenced',
    };
    const d = decideAcquire({
      raw: '{"0":"metrics-b48lf","1":"metrics-x"}',
      replicas: 2,
      pod: 'metrics-6bnjr',
      holders: new Map([
        ['metrics-b48lf', unreachable],
        ['metrics-x', RUNNING],
      ]),
    });
    expect(d).toEqual({
      kind: 'wait',
      holders: [
        { id: 0, pod: 'metrics-b48lf' },
        { id: 1, pod: 'metrics-x' },
      ],
      unconfirmed: [{ id: 0, pod: 'metrics-b48lf', verdict: unreachable }],
      message:
        "every instance ID is held, and no holder that stopped running is confirmed stopped yet (ID 0 held by metrics-b48lf on c2-2: node unreachable (Ready=Unknown), not fenced): an ID is given back once its pod's kubelet confirms the end from a Ready node, or its node is fenced",
    });
    // once the node is fenced, the same request takes the ID
    expect(
      decideAcquire({
        raw: '{"0":"metrics-b48lf","1":"metrics-x"}',
        replicas: 2,
        pod: 'metrics-6bnjr',
        holders: new Map<string, StopVerdict>([
          ['metrics-b48lf', { stopped: true, reason: 'node-fenced', text: 'NodeFence c2-2 is Fenced' }],
          ['metrics-x', RUNNING],
        ]),
      }),
    ).toMatchObject({ kind: 'assigned', id: 0, dropped: [{ id: 0, pod: 'metrics-b48lf' }] });
  });

  it('a holder nothing is known of is not taken for stopped', () =>
    expect(decideAcquire({ raw: '{"0":"a"}', replicas: 1, pod: 'b', holders: new Map() })).toMatchObject({
      kind: 'wait',
      unconfirmed: [{ id: 0, pod: 'a', verdict: { reason: 'node-unknown' } }],
    }));

  it('stale entries are dropped only when no id is free', () => {
    // "a" is gone, but 1 is free: its entry stays until the map is full
    expect(decideAcquire({ raw: '{"0":"a"}', replicas: 2, pod: 'b', holders: live('b') })).toEqual({
      kind: 'assigned',
      id: 1,
      next: '{"0":"a","1":"b"}',
      released: [],
      dropped: [],
    });
  });

  it.each([
    ['{"0":"a",}', 'not valid JSON'],
    ['{"01":"a"}', 'entry "01"'],
    ['{"0":"a","0":"b"}', 'written 2 times'],
    ['{"0":"c","1":"c"}', 'holds 2 ids'],
  ])('an invalid map %j is refused, never rewritten', (raw, problem) => {
    const d = decideAcquire({ raw, replicas: 5, pod: 'c', holders: live('c') });
    expect(d.kind).toBe('invalid');
    expect(d.kind === 'invalid' && d.problems.join('; ')).toContain(problem);
  });
});

describe('releasing it', () => {
  it.each([
    [
      'removes the pod entry',
      { raw: '{"0":"a","1":"b"}', replicas: 2, pod: 'a' },
      { kind: 'released', id: 0, next: '{"1":"b"}', released: [] },
    ],
    [
      'removes the last entry, leaving an empty map',
      { raw: '{"0":"a"}', replicas: 1, pod: 'a' },
      { kind: 'released', id: 0, next: '{}', released: [] },
    ],
    [
      'a pod that holds nothing: nothing to write',
      { raw: '{"0":"a"}', replicas: 1, pod: 'z' },
      { kind: 'notHeld' },
    ],
    ['no map at all: nothing to write', { raw: undefined, replicas: 1, pod: 'z' }, { kind: 'notHeld' }],
    [
      'a pod holding an out-of-range id gives it back; the other out-of-range ones go too',
      { raw: '{"0":"a","2":"c","3":"d"}', replicas: 1, pod: 'c' },
      { kind: 'released', id: 2, next: '{"0":"a"}', released: [{ id: 3, pod: 'd' }] },
    ],
    [
      'an invalid map is refused',
      { raw: '{"x":"a"}', replicas: 1, pod: 'a' },
      {
        kind: 'invalid',
        problems: ['entry "x": the id must be a decimal integer >= 0 without leading zeros'],
      },
    ],
  ] as const)('%s', (_what, input, decision) => expect(decideRelease(input)).toEqual(decision));
});

it('an invalid map is explained with what to do', () =>
  expect(
    invalidMapMessage({ kind: 'Deployment', namespace: 'shop', name: 'web' }, [
      'entry "01": the id must be a decimal integer >= 0 without leading zeros',
    ]),
  ).toBe(
    'the palisade.dev/instance-ids annotation of Deployment shop/web is not a valid instance-ID map: ' +
      'entry "01": the id must be a decimal integer >= 0 without leading zeros. Palisade does not rewrite a map it cannot read: ' +
      `correct it (kubectl annotate deployment/web -n shop --overwrite palisade.dev/instance-ids='{"0":"<pod name>"}'), ` +
      'or remove it to start over (kubectl annotate deployment/web -n shop palisade.dev/instance-ids-) and let the pods acquire again',
  ));

describe('decideCollect', () => {
  it.each([
    [
      'drops the entries of pods not live',
      '{"0":"a","1":"gone","2":"b"}',
      ['a', 'b'],
      { kind: 'collected', next: '{"0":"a","2":"b"}', dropped: [{ id: 1, pod: 'gone' }] },
    ],
    ['keeps live pods out of range (they ask again)', '{"5":"a"}', ['a'], { kind: 'clean' }],
    ['an absent map is clean', undefined, [], { kind: 'clean' }],
    ['an empty map is clean', '{}', ['a'], { kind: 'clean' }],
    [
      'drops every entry when no pod is live',
      '{"1":"x","0":"y"}',
      [],
      {
        kind: 'collected',
        next: '{}',
        dropped: [
          { id: 0, pod: 'y' },
          { id: 1, pod: 'x' },
        ],
      },
    ],
  ])('%s', (_, raw, running, want) =>
    expect(decideCollect({ raw, holders: judged(running, ['a', 'b', 'x', 'y', 'gone']) })).toEqual(want),
  );

  it('keeps an entry whose pod is not confirmed stopped', () =>
    expect(
      decideCollect({
        raw: '{"0":"a","1":"b"}',
        holders: new Map<string, StopVerdict>([
          ['a', { stopped: false, reason: 'node-unreachable', text: 'a on c2-2: node unreachable' }],
          ['b', STOPPED],
        ]),
      }),
    ).toEqual({ kind: 'collected', next: '{"0":"a"}', dropped: [{ id: 1, pod: 'b' }] }));

  it('never rewrites a map it cannot read', () =>
    expect(decideCollect({ raw: '{"x":"a"}', holders: new Map() })).toMatchObject({ kind: 'invalid' }));
});
