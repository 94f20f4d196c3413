// The runtime's loop with a reconciler that records what it is asked, on fake timers: keys are
// de-duplicated, never processed twice at once, processed again when changed meanwhile;
// requeueAfter and per-key backoff wait as told; the concurrency limit holds; halt() drops
// everything at once and a result that comes back after it is ignored.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { done, type Result, requeueAfter } from '../../lib/runtime/result.js';
import { Controller, type Reconciler } from './controller.js';
import { Term } from './gate.js';
import { runtimeMetrics } from './metrics.js';

type Plan = (key: string, n: number) => Promise<Result<'later'>> | Result<'later'>;

function harness(plan: Plan, opts: { concurrency?: number } = {}) {
  const calls: string[] = [];
  const counts = new Map<string, number>();
  let active = 0;
  let maxActive = 0;
  const reconciler: Reconciler<'later'> = {
    async reconcile(key) {
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      calls.push(key);
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        return await plan(key, n);
      } finally {
        active--;
      }
    },
  };
  const c = new Controller<'later'>({
    name: 'test',
    reconciler,
    concurrency: opts.concurrency,
    backoff: { baseMs: 100, maxMs: 400 },
  });
  const metrics = runtimeMetrics();
  c.instrument(metrics, 'test');
  const term = new Term(1, 'kube-system/test', async () => true);
  return { c, term, calls, metrics, maxActive: () => maxActive };
}

/** a promise the test resolves by hand */
function gate<T>() {
  let open!: (v: T) => void;
  const p = new Promise<T>((r) => (open = r));
  return { p, open };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('Controller', () => {
  it('outside a term nothing is queued: a follower only watches', async () => {
    const h = harness(() => done);
    h.c.enqueue('a');
    await settle();
    expect(h.calls).toEqual([]);
    expect(h.c.running).toBe(false);
  });

  it('a key queued twice before a worker takes it is processed once', async () => {
    const h = harness(() => done);
    const started = gate<void>();
    // begin() holds the workers until every key of the term is queued
    const c = new Controller<'later'>({
      name: 'x',
      reconciler: {
        begin: async (_t, self) => {
          self.enqueue('a');
          self.enqueue('a');
          self.enqueue('b');
          await started.p;
        },
        reconcile: async (k) => {
          h.calls.push(k);
          return done;
        },
      },
    });
    void c.run(h.term);
    await settle();
    expect(h.calls).toEqual([]);
    started.open();
    await settle();
    expect(h.calls).toEqual(['a', 'b']);
  });

  it('a key changed while processed is processed again after, never twice at once', async () => {
    const first = gate<Result<'later'>>();
    const h = harness((_k, n) => (n === 1 ? first.p : done), { concurrency: 4 });
    await h.c.run(h.term);
    h.c.enqueue('a');
    await settle();
    h.c.enqueue('a');
    h.c.enqueue('a');
    await settle();
    expect(h.calls).toEqual(['a']);
    first.open(done);
    await settle();
    expect(h.calls).toEqual(['a', 'a']);
    expect(h.maxActive()).toBe(1);
  });

  it('requeueAfter: looked at again after the delay, with its typed reason kept', async () => {
    const h = harness((_k, n) => (n === 1 ? requeueAfter(500, 'later') : done));
    await h.c.run(h.term);
    h.c.enqueue('a');
    await settle();
    expect(h.c.waitReasons().get('a')).toBe('later');
    await vi.advanceTimersByTimeAsync(499);
    expect(h.calls).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls).toEqual(['a', 'a']);
    expect(h.c.waitReasons().has('a')).toBe(false);
  });

  it('errors: retried after 100, 200, 400, 400, 400 ms (capped); one failing key does not slow another', async () => {
    const at: number[] = [];
    const t0 = Date.now();
    const h = harness((k) => {
      if (k === 'bad') {
        at.push(Date.now() - t0);
        throw new Error('boom');
      }
      return done;
    });
    await h.c.run(h.term);
    h.c.enqueue('bad');
    await vi.advanceTimersByTimeAsync(1_200);
    expect(at).toEqual([0, 100, 300, 700, 1_100]);
    h.c.enqueue('good');
    await settle();
    expect(h.calls.filter((k) => k === 'good')).toEqual(['good']);
    const errors = await h.metrics.reconcileErrors.get();
    expect(errors.values[0].value).toBeGreaterThanOrEqual(4);
  });

  it('a success forgets the failures: the next error waits the base delay again', async () => {
    const at: number[] = [];
    const t0 = Date.now();
    const h = harness((_k, n) => {
      at.push(Date.now() - t0);
      if (n === 3) return done;
      throw new Error('boom');
    });
    await h.c.run(h.term);
    h.c.enqueue('a'); // fails at 0 and 100, succeeds at 300
    await vi.advanceTimersByTimeAsync(1_000);
    h.c.enqueue('a'); // fails again: retried after 100 ms, not 400
    await vi.advanceTimersByTimeAsync(100);
    expect(at).toEqual([0, 100, 300, 1_000, 1_100]);
  });

  it('at most `concurrency` reconciles at once', async () => {
    const held = gate<Result<'later'>>();
    const h = harness(() => held.p, { concurrency: 2 });
    await h.c.run(h.term);
    for (const k of ['a', 'b', 'c', 'd']) h.c.enqueue(k);
    await settle();
    expect(h.calls).toEqual(['a', 'b']);
    expect(h.c.depth).toBe(2);
    held.open(done);
    await settle();
    expect(h.calls).toEqual(['a', 'b', 'c', 'd']);
    expect(h.maxActive()).toBe(2);
  });

  it('halt: waiting and delayed keys are dropped at once; a late result is ignored', async () => {
    const held = gate<Result<'later'>>();
    const h = harness((k) => (k === 'slow' ? held.p : requeueAfter(100, 'later')));
    await h.c.run(h.term);
    h.c.enqueue('slow');
    h.c.enqueue('other');
    await settle();
    expect(h.calls).toEqual(['slow']);
    h.term.end();
    h.c.halt();
    expect(h.c.running).toBe(false);
    held.open(requeueAfter(10, 'later'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.calls).toEqual(['slow']);
    expect(h.c.depth).toBe(0);
    expect(h.c.waiting).toBe(0);
  });

  it('a new term starts afresh: begin() again, nothing left of the last one', async () => {
    let begun = 0;
    const calls: string[] = [];
    const c = new Controller<'later'>({
      name: 'x',
      reconciler: {
        begin: (_t, self) => {
          begun++;
          self.enqueue('all');
        },
        reconcile: async (k) => {
          calls.push(k);
          return requeueAfter(1_000, 'later');
        },
      },
    });
    const t1 = new Term(1, 'l', async () => true);
    await c.run(t1);
    await settle();
    t1.end();
    c.halt();
    const t2 = new Term(2, 'l', async () => true);
    await c.run(t2);
    await settle();
    expect(begun).toBe(2);
    expect(calls).toEqual(['all', 'all']);
    expect(c.currentTerm?.epoch).toBe(2);
  });
});
