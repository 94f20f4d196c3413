import { describe, expect, it } from 'vitest';
import { splitEvents } from './replaced';
import type { EventView } from './views';

const ev = (uid: string, involvedUid: string | undefined, lastSeen: number): EventView => ({
  uid,
  namespace: 'shop',
  involved: { kind: 'Pod', namespace: 'shop', name: 'orders-db-2', uid: involvedUid },
  count: 1,
  lastSeen,
});

describe('splitEvents', () => {
  const now = { uid: 'new', createdAt: 100 };
  const old = { uid: 'old', createdAt: 10 };
  it.each<[string, EventView, 'current' | 'previous' | 'neither', boolean]>([
    ["the new pod's own", ev('e1', 'new', 120), 'current', true],
    ["the old pod's own", ev('e2', 'old', 50), 'previous', true],
    ['an older incarnation: neither', ev('e3', 'older', 5), 'neither', true],
    ['no uid, before the new pod: the old one', ev('e4', undefined, 90), 'previous', true],
    ['no uid, after the new pod was created: the new one', ev('e5', undefined, 110), 'current', true],
    ['no uid and no replaced pod: the current one', ev('e6', undefined, 90), 'current', false],
  ])('%s', (_what, e, where, replaced) => {
    const s = splitEvents([e], now, replaced ? old : undefined);
    expect(s.current.includes(e)).toBe(where === 'current');
    expect(s.previous.includes(e)).toBe(where === 'previous');
  });
});
