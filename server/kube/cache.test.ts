import { describe, expect, it } from 'vitest';
import type { PodView } from '../../lib/console/protocol.js';
import { keepGracefulDeletion } from './cache.js';

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
