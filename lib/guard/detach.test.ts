import { describe, expect, it } from 'vitest';
import type { Phase } from '../fencing/types';
import { type DetachInput, judgeDetach } from './detach';
import type { NodeFacts } from './types';

const attachment = { name: 'csi-abc', pv: 'pv-1', nodeName: 'a1-2', attached: true, deleting: false };
const node = (n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'a1-2',
  uid: 'u',
  ready: 'True',
  taints: [],
  ...n,
});
const fence = (phase: Phase) => ({ name: 'a1-2', nodeName: 'a1-2', phase, nodeUid: 'u' });
const input = (i: Partial<DetachInput>): DetachInput => ({
  attachment,
  podsUsingVolumeOnThatNode: [],
  node: node(),
  mountedOnNode: false,
  ...i,
});

describe('judgeDetach', () => {
  it.each<[string, Partial<DetachInput>, boolean, RegExp[]]>([
    ['nothing uses it, Ready, unmounted: safe', {}, true, [/Kubernetes detaches it on its own/]],
    ['node object gone: safe', { node: undefined }, true, [/no longer exists/]],
    [
      'fenced node, even with a pod in the API: safe',
      {
        node: node({ ready: 'Unknown' }),
        podsUsingVolumeOnThatNode: ['shop/db-0'],
        nodeFence: fence('Fenced'),
      },
      true,
      [/is Fenced/],
    ],
    [
      'a pod still uses it: unsafe',
      { podsUsingVolumeOnThatNode: ['shop/db-0'], mountedOnNode: true },
      false,
      [/pod\(s\) shop\/db-0 on a1-2 still use volume pv-1/, /still reports volume pv-1 in use/],
    ],
    [
      'unreachable node, the pod force-deleted: unsafe (its containers may still write)',
      { node: node({ ready: 'Unknown' }), mountedOnNode: true },
      false,
      [/unreachable \(Ready=Unknown\) and not fenced: the API cannot tell/, /still reports/],
    ],
    [
      'fence not done yet: unsafe',
      { node: node({ ready: 'Unknown' }), nodeFence: fence('Fencing') },
      false,
      [/not fenced/],
    ],
    ['Ready but still mounted: unsafe', { mountedOnNode: true }, false, [/not finished unmounting/]],
  ])('%s', (_what, i, expectSafe, texts) => {
    const v = judgeDetach(input(i));
    expect(v.safe).toBe(expectSafe);
    const lines = v.safe ? v.notes : v.reasons;
    for (const t of texts)
      expect(
        lines.some((l) => t.test(l)),
        `${t} in ${lines.join(' / ')}`,
      ).toBe(true);
    if (!v.safe) expect(v.reasons).toHaveLength(texts.length);
  });

  it('notes a detach already under way', () => {
    const v = judgeDetach(input({ attachment: { ...attachment, deleting: true } }));
    expect(v.notes[0]).toMatch(/already under way/);
  });

  it.each<[string, Partial<DetachInput>, 'type-name' | 'acknowledge' | 'safe']>([
    ['healthy node, pod gone, unmounted: safe, nothing to type', {}, 'safe'],
    ['healthy node, pod gone, kubelet still unmounting: acknowledge', { mountedOnNode: true }, 'acknowledge'],
    ['a pod still uses it: type the name', { podsUsingVolumeOnThatNode: ['shop/db-0'] }, 'type-name'],
    ['unreachable node: type the name', { node: node({ ready: 'Unknown' }) }, 'type-name'],
    [
      'NotReady node still mounted: type the name',
      { node: node({ ready: 'False' }), mountedOnNode: true },
      'type-name',
    ],
  ])('how a person confirms: %s', (_what, i, want) => {
    const v = judgeDetach(input(i));
    expect(v.safe ? 'safe' : (v.confirmation ?? 'type-name')).toBe(want);
  });
});
