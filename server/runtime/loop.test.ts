// The controller builder: each source's changes reach the reconciler as typed keys (decoded
// from the queue's strings), in the loop's one field order; a change that maps to no key, or
// any change outside a term, enqueues nothing; requeue reasons come back keyed by typed keys.
import { describe, expect, it } from 'vitest';
import { fieldsKey, workloadKey } from '../../lib/runtime/keys.js';
import { done, requeueAfter } from '../../lib/runtime/result.js';
import type { Handler } from '../kube/informer.js';
import { Term } from './gate.js';
import { type Change, Loop, type Source } from './loop.js';

/** a source the test drives by hand */
class FakeSource<V> implements Source<V> {
  private readonly hs: Handler<V>[] = [];
  on(h: Handler<V>) {
    this.hs.push(h);
  }
  emit(change: Change, v: V) {
    for (const h of this.hs) change === 'update' ? h.update?.(v, v) : h[change]?.(v);
  }
}

const eventually = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

type W = { kind: 'Deployment' | 'StatefulSet'; namespace: string; name: string };

function build() {
  const workloads = new FakeSource<W>();
  const protectors = new FakeSource<{ namespace: string; name: string; owner?: W }>();
  const policies = new FakeSource<{ name: string }>();
  const seen: W[] = [];
  const loop = new Loop<W, 'conflict'>({
    name: 'test',
    key: workloadKey<W['kind']>(),
    for: { source: workloads, keys: (w, change) => change !== 'delete' && w },
    owns: [{ source: protectors, keys: (p) => p.owner }],
    watches: [
      {
        source: policies,
        keys: () => [
          { kind: 'Deployment', namespace: 'a', name: 'x' },
          { kind: 'StatefulSet', namespace: 'b', name: 'y' },
        ],
      },
    ],
    reconcile: async (key) => {
      seen.push(key);
      return key.name === 'busy' ? requeueAfter(60_000, 'conflict') : done;
    },
  });
  return { loop, workloads, protectors, policies, seen };
}

describe('Loop (the controller builder)', () => {
  it('hands the reconciler typed keys from its for, owns and watches', async () => {
    const t = build();
    await t.loop.controller.run(new Term(1, 'kube-system/test', async () => true));
    t.workloads.emit('add', { kind: 'Deployment', namespace: 'shop', name: 'web' });
    t.protectors.emit('update', {
      namespace: 'shop',
      name: 'p',
      owner: { kind: 'StatefulSet', namespace: 'shop', name: 'db' },
    });
    t.protectors.emit('update', { namespace: 'shop', name: 'orphan' }); // no owner: no key
    t.workloads.emit('delete', { kind: 'Deployment', namespace: 'shop', name: 'gone' }); // mapped to none
    t.policies.emit('update', { name: 'any' });
    await eventually(() => t.seen.length === 4);
    expect(t.seen).toEqual([
      { kind: 'Deployment', namespace: 'shop', name: 'web' },
      { kind: 'StatefulSet', namespace: 'shop', name: 'db' },
      { kind: 'Deployment', namespace: 'a', name: 'x' },
      { kind: 'StatefulSet', namespace: 'b', name: 'y' },
    ]);
    t.loop.controller.halt();
  });

  it('enqueues nothing outside a term (a follower only watches)', async () => {
    const t = build();
    t.workloads.emit('add', { kind: 'Deployment', namespace: 'shop', name: 'web' });
    expect(t.loop.controller.depth).toBe(0);
    expect(t.seen).toEqual([]);
  });

  it('tells why a key waits, by its typed key', async () => {
    const t = build();
    await t.loop.controller.run(new Term(1, 'kube-system/test', async () => true));
    t.loop.enqueue({ kind: 'Deployment', namespace: 'shop', name: 'busy' });
    await eventually(() => t.loop.waitReasons().size === 1);
    expect([...t.loop.waitReasons()]).toEqual([
      [{ kind: 'Deployment', namespace: 'shop', name: 'busy' }, 'conflict'],
    ]);
    t.loop.controller.halt();
  });

  it('a queue text the codec cannot read is an error of that key, not a crash', async () => {
    const loop = new Loop<{ a: string; b: string }>({
      name: 'strict',
      key: fieldsKey('a', 'b'),
      reconcile: async () => done,
    });
    await loop.controller.run(new Term(1, 'kube-system/test', async () => true));
    // only encode() fills the queue; a raw enqueue of a foreign text fails its reconcile, and
    // the key waits out its backoff like any failing key
    loop.controller.enqueue('lonely');
    await eventually(() => loop.controller.waiting === 1);
    expect(loop.controller.depth).toBe(0);
    loop.controller.halt();
  });
});
