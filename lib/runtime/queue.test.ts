import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay, DelayedKeys, WorkQueue } from './queue.js';
import { afterReconcile, done, requeueAfter } from './result.js';

type Op = ['add', string] | ['get'] | ['done', string] | ['shut'];

/** Runs the ops; returns what each get() handed out and the length at the end. */
function run(ops: Op[]) {
  const q = new WorkQueue<string>();
  const got: (string | undefined)[] = [];
  for (const op of ops) {
    if (op[0] === 'add') q.add(op[1]);
    else if (op[0] === 'get') got.push(q.get());
    else if (op[0] === 'done') q.done(op[1]);
    else q.shutDown();
  }
  return { got, length: q.length };
}

describe('WorkQueue', () => {
  const cases: [string, Op[], (string | undefined)[], number][] = [
    ['FIFO', [['add', 'a'], ['add', 'b'], ['get'], ['get']], ['a', 'b'], 0],
    [
      'a key queued twice is handed out once',
      [['add', 'a'], ['add', 'a'], ['get'], ['get']],
      ['a', undefined],
      0,
    ],
    [
      'a key added while processed is not handed to a second worker',
      [['add', 'a'], ['get'], ['add', 'a'], ['get']],
      ['a', undefined],
      0,
    ],
    [
      'a key added while processed is queued again when done',
      [['add', 'a'], ['get'], ['add', 'a'], ['add', 'a'], ['done', 'a'], ['get']],
      ['a', 'a'],
      0,
    ],
    [
      'done without a change meanwhile: not queued again',
      [['add', 'a'], ['get'], ['done', 'a'], ['get']],
      ['a', undefined],
      0,
    ],
    [
      'other keys are not held up by one being processed',
      [['add', 'a'], ['get'], ['add', 'a'], ['add', 'b'], ['get']],
      ['a', 'b'],
      0,
    ],
    ['shut down: nothing handed out', [['add', 'a'], ['shut'], ['get']], [undefined], 0],
    ['shut down: adds are refused', [['shut'], ['add', 'a'], ['get']], [undefined], 0],
    [
      'shut down while processing: done does not queue it again',
      [['add', 'a'], ['get'], ['add', 'a'], ['shut'], ['done', 'a'], ['get']],
      ['a', undefined],
      0,
    ],
    ['length counts waiting keys only', [['add', 'a'], ['add', 'b'], ['get']], ['a'], 1],
  ];
  it.each(cases)('%s', (_, ops, got, length) => {
    expect(run(ops)).toEqual({ got, length });
  });
});

describe('DelayedKeys', () => {
  const cases: [string, [string, number][], number, string[], number | undefined][] = [
    ['nothing due before its time', [['a', 100]], 99, [], 100],
    ['due at its time', [['a', 100]], 100, ['a'], undefined],
    [
      'an earlier time replaces a later one',
      [
        ['a', 100],
        ['a', 50],
      ],
      50,
      ['a'],
      undefined,
    ],
    [
      'a later time does not postpone an earlier one',
      [
        ['a', 50],
        ['a', 100],
      ],
      50,
      ['a'],
      undefined,
    ],
    [
      'earliest first; the rest stays',
      [
        ['b', 30],
        ['a', 10],
        ['c', 90],
      ],
      40,
      ['a', 'b'],
      90,
    ],
  ];
  it.each(cases)('%s', (_, adds, now, due, next) => {
    const d = new DelayedKeys<string>();
    for (const [k, t] of adds) d.add(k, t);
    expect(d.takeDue(now)).toEqual(due);
    expect(d.next()).toBe(next);
  });
});

describe('backoff', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };
  const cases: [number, number][] = [
    [0, 100],
    [1, 200],
    [2, 400],
    [3, 800],
    [4, 1_000],
    [60, 1_000],
    [5_000, 1_000],
  ];
  it.each(cases)('after %i failures: %i ms', (n, ms) => expect(backoffDelay(n, policy)).toBe(ms));

  it('per key: one failing key does not slow another; a success forgets', () => {
    const b = new Backoff<string>(policy);
    expect([b.fail('a'), b.fail('a'), b.fail('a')]).toEqual([100, 200, 400]);
    expect(b.fail('b')).toBe(100);
    b.forget('a');
    expect(b.fail('a')).toBe(100);
  });
});

describe('afterReconcile', () => {
  const backoff = () => 400;
  const cases: [string, Parameters<typeof afterReconcile>[0], ReturnType<typeof afterReconcile>][] = [
    ['done: forget, not queued again', { result: done }, { forgetFailures: true }],
    [
      'requeueAfter: forget failures, queued after the delay',
      { result: requeueAfter(250, 'budget') },
      { forgetFailures: true, addAfterMs: 250 },
    ],
    ['a negative delay is now', { result: requeueAfter(-5, 'x') }, { forgetFailures: true, addAfterMs: 0 }],
    [
      'an error: failures kept, queued after the backoff',
      { error: new Error('boom') },
      { forgetFailures: false, addAfterMs: 400 },
    ],
  ];
  it.each(cases)('%s', (_, outcome, want) => expect(afterReconcile(outcome, backoff)).toEqual(want));
});
