import { describe, expect, it } from 'vitest';
import { Store } from './store.js';

const obj = (name: string, ns = 'default') => ({ metadata: { name, namespace: ns } });

describe('Store', () => {
  it('assigns one increasing resourceVersion across collections', () => {
    const s = new Store({ watchWindow: 10 });
    const a = s.put('/pods', obj('a'));
    const b = s.put('apps/deployments', obj('b'));
    const c = s.put('/pods', obj('a'));
    expect([a.rv, b.rv, c.rv]).toEqual([a.rv, a.rv + 1, a.rv + 2]);
    expect(c.obj.metadata.resourceVersion).toBe(String(c.rv));
  });

  it('gives the DELETED event its own resourceVersion and removes the object', () => {
    const s = new Store({ watchWindow: 10 });
    s.put('/pods', obj('a'));
    const gone = s.remove('/pods', 'default', 'a')!;
    expect(gone.rv).toBe(s.currentRv());
    expect(s.get('/pods', 'default', 'a')).toBeUndefined();
    expect(s.remove('/pods', 'default', 'a')).toBeUndefined();
  });

  it.each([
    { window: 3, writes: 3, from: 'first', expired: false, replayed: 2 },
    { window: 3, writes: 5, from: 'first', expired: true, replayed: 0 },
    { window: 3, writes: 5, from: 'third', expired: false, replayed: 2 },
    { window: 3, writes: 5, from: 'last', expired: false, replayed: 0 },
  ])(
    'watch window $window after $writes writes, from the $from: expired=$expired',
    ({ window, writes, from, expired, replayed }) => {
      const s = new Store({ watchWindow: window });
      const rvs = Array.from({ length: writes }, (_, i) => s.put('/configmaps', obj(`c${i}`)).rv);
      const rv = from === 'first' ? rvs[0] : from === 'third' ? rvs[2] : rvs[rvs.length - 1];
      const events = s.collection('/configmaps').since(rv);
      if (expired) expect(events).toBeUndefined();
      else {
        expect(events).toHaveLength(replayed);
        expect(events!.every((e, i, all) => e.rv > rv && (i === 0 || all[i - 1].rv < e.rv))).toBe(true);
      }
    },
  );

  it('delivers events to collection watchers and store listeners in commit order', () => {
    const s = new Store({ watchWindow: 10 });
    const seen: string[] = [];
    s.collection('/pods').watchers.add((e) => seen.push(`w:${e.type}:${e.rv}`));
    s.onEvent((key, e) => seen.push(`l:${key}:${e.type}`));
    const a = s.put('/pods', obj('a'));
    s.put('/pods', obj('a'));
    s.remove('/pods', 'default', 'a');
    expect(seen).toEqual([
      `w:ADDED:${a.rv}`,
      'l:/pods:ADDED',
      `w:MODIFIED:${a.rv + 1}`,
      'l:/pods:MODIFIED',
      `w:DELETED:${a.rv + 2}`,
      'l:/pods:DELETED',
    ]);
  });

  it('lists keys sorted by namespace and name', () => {
    const s = new Store({ watchWindow: 10 });
    for (const [ns, n] of [
      ['b', 'x'],
      ['a', 'z'],
      ['a', 'y'],
    ])
      s.put('/pods', obj(n, ns));
    expect(s.collection('/pods').keys()).toEqual(['a/y', 'a/z', 'b/x']);
  });
});
