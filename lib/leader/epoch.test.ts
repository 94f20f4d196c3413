import { describe, expect, it } from 'vitest';
import { epochFieldManager, epochOf, judgeEpoch } from './epoch.js';

const lease = { namespace: 'kube-system', name: 'palisade-controller', transitions: 5, holder: 'b_2_x' };

describe('epoch fencing', () => {
  it('stamps and reads the epoch in a fieldManager', () => {
    expect(epochFieldManager(7)).toBe('palisade-leader-e7');
    expect(epochOf('palisade-leader-e7')).toBe(7);
    expect(epochOf('kubectl-client-side-apply')).toBeUndefined();
    expect(epochOf(undefined)).toBeUndefined();
    expect(epochOf('palisade-leader-e')).toBeNaN();
    expect(epochOf('palisade-leader-e1x')).toBeNaN();
    expect(() => epochFieldManager(-1)).toThrow();
  });

  it.each<[string | undefined, string]>([
    [undefined, 'not-a-leader-write'],
    ['palisade', 'not-a-leader-write'],
    ['palisade-leader-e5', 'current'],
    ['palisade-leader-e4', 'stale'],
    ['palisade-leader-e6', 'stale'],
    ['palisade-leader-eX', 'malformed'],
  ])('%s -> %s', (fm, kind) => expect(judgeEpoch(fm, lease).kind).toBe(kind));

  it('names both epochs and the holder when it refuses', () =>
    expect(judgeEpoch('palisade-leader-e4', lease)).toEqual({
      kind: 'stale',
      epoch: 4,
      current: 5,
      message:
        'stale leader: this write carries epoch 4, but the Lease kube-system/palisade-controller is at epoch 5 (held by b_2_x): a newer leader has taken over',
    }));
});
