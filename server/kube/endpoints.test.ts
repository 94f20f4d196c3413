import { describe, expect, it } from 'vitest';
import type { EndpointSliceView } from '../../lib/console/endpoints';
import { EndpointTracker } from './endpoints';

const slice = (...uids: [string, boolean][]): EndpointSliceView => ({
  namespace: 'shop',
  name: 'web-1',
  service: 'web',
  endpoints: uids.map(([podUid, ready]) => ({ podUid, ready, serving: ready, terminating: !ready })),
});

describe('EndpointTracker', () => {
  it('records when each pod left, per pod, in order', () => {
    const t = new EndpointTracker();
    t.record(undefined, slice(['a', true], ['b', true]), 1);
    t.record(slice(['a', true], ['b', true]), slice(['a', false], ['b', true]), 2);
    t.record(slice(['a', false], ['b', true]), slice(['b', true]), 3);
    expect(t.changesFor('a')).toEqual([
      { service: 'web', change: 'terminating', at: 2 },
      { service: 'web', change: 'removed', at: 3 },
    ]);
    expect(t.changesFor('b')).toEqual([]);
  });

  it('forgets the least recently changed pods beyond its bound', () => {
    const t = new EndpointTracker(2);
    for (const uid of ['a', 'b', 'c']) t.record(slice([uid, true]), slice(), 1);
    expect(t.changesFor('a')).toEqual([]);
    expect(t.changesFor('c')).toHaveLength(1);
  });
});
