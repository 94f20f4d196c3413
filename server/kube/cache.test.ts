import { describe, expect, it } from 'vitest';
import type { PodView } from '../../lib/console/protocol.js';
import { ClusterCache, keepGracefulDeletion } from './cache.js';

const pod = (extra: Partial<PodView>): PodView => ({
  uid: 'u1',
  namespace: 'shop',
  name: 'web-0',
  state: 'Terminating',
  ready: false,
  claims: [],
  resourceVersion: '1',
  ...extra,
});

describe('keepGracefulDeletion', () => {
  it.each([
    {
      name: 'kubelet final grace-0 delete keeps the graceful one',
      old: pod({ deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 }),
      view: pod({ deletionTimestamp: 5_000, deletionGracePeriodSeconds: 0 }),
      grace: 30,
      ts: 30_000,
    },
    {
      name: 'first deletion is taken as it is',
      old: pod({}),
      view: pod({ deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 }),
      grace: 30,
      ts: 30_000,
    },
    {
      name: 'a shortened but non-zero grace is shown',
      old: pod({ deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 }),
      view: pod({ deletionTimestamp: 10_000, deletionGracePeriodSeconds: 10 }),
      grace: 10,
      ts: 10_000,
    },
    {
      name: 'a new pod with the same name is not confused with the old',
      old: pod({ deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 }),
      view: pod({ uid: 'u2', deletionTimestamp: 1_000, deletionGracePeriodSeconds: 0 }),
      grace: 0,
      ts: 1_000,
    },
  ])('$name', ({ old, view, grace, ts }) => {
    const out = keepGracefulDeletion(view, old);
    expect(out.deletionGracePeriodSeconds).toBe(grace);
    expect(out.deletionTimestamp).toBe(ts);
  });
});

describe('ClusterCache pods by uid and tombstones', () => {
  it('finds a pod by uid, not the one that replaced it under the same name', () => {
    const c = new ClusterCache();
    c.setPod(pod({ uid: 'u1', state: 'Ready' }));
    expect(c.podByUid('u1')?.name).toBe('web-0');
    c.setPod(pod({ uid: 'u2', state: 'Pending' }));
    expect(c.podByUid('u1')).toBeUndefined();
    expect(c.podByUid('u2')?.state).toBe('Pending');
  });

  it('keeps a deleted pod, and when it went, until the bound is reached', () => {
    const c = new ClusterCache(1);
    c.setPod(pod({ name: 'a', uid: 'ua' }));
    c.setPod(pod({ name: 'b', uid: 'ub' }));
    const before = Date.now();
    c.deletePod(pod({ name: 'a', uid: 'ua' }));
    expect(c.podByUid('ua')).toBeUndefined();
    expect(c.deletedPod('shop', 'a')?.uid).toBe('ua');
    expect(c.podDeletedAt('shop', 'a')).toBeGreaterThanOrEqual(before);
    c.deletePod(pod({ name: 'b', uid: 'ub' }));
    expect(c.deletedPod('shop', 'a')).toBeUndefined();
    expect(c.podDeletedAt('shop', 'a')).toBeUndefined();
    expect(c.deletedPod('shop', 'b')?.uid).toBe('ub');
  });
});

describe('ClusterCache departed pods with claims', () => {
  it('remembers them by uid, even once a replacement takes the name, up to the bound', () => {
    const c = new ClusterCache(2);
    const old = pod({ uid: 'u1', node: 'n1', claims: ['data-web-0'] });
    c.setPod(old);
    c.deletePod(old);
    c.setPod(pod({ uid: 'u2', node: 'n2', claims: ['data-web-0'] }));
    expect(c.deletedPod('shop', 'web-0')).toBeUndefined();
    expect(c.departedClaimPods().map((d) => [d.view.uid, d.view.node])).toEqual([['u1', 'n1']]);
    for (const uid of ['a', 'b']) {
      const p = pod({ uid, name: uid, claims: ['x'] });
      c.setPod(p);
      c.deletePod(p);
    }
    c.setPod(pod({ uid: 'noclaim', name: 'nc' }));
    c.deletePod(pod({ uid: 'noclaim', name: 'nc' }));
    expect(c.departedClaimPods().map((d) => d.view.uid)).toEqual(['a', 'b']);
  });
});

describe('ClusterCache replaced pods', () => {
  it('remembers the pod a same-name pod replaced, deleted first or swapped in a relist', () => {
    const c = new ClusterCache();
    c.setPod(pod({ uid: 'u1', node: 'a2-1', state: 'Ready' }));
    expect(c.replacedPod('shop', 'web-0')).toBeUndefined();
    c.setPod(pod({ uid: 'u1', node: 'a2-1', state: 'Terminating' }));
    expect(c.replacedPod('shop', 'web-0')).toBeUndefined();
    const before = Date.now();
    c.deletePod(pod({ uid: 'u1' }));
    c.setPod(pod({ uid: 'u2', node: 'b1-1', state: 'Pending' }));
    const r = c.replacedPod('shop', 'web-0');
    expect(r?.view.uid).toBe('u1');
    expect(r?.view.node).toBe('a2-1');
    expect(r?.at).toBeGreaterThanOrEqual(before);
    // a relist that swaps the object without a delete
    c.setPod(pod({ uid: 'u3', node: 'c1-1' }));
    expect(c.replacedPod('shop', 'web-0')?.view.uid).toBe('u2');
  });
});
