import { describe, expect, it } from 'vitest';
import { type ApiView, findGhosts, ghostsByNode, type ProcessView } from './ghosts';
import type { NodeState, PodView } from './protocol';

const proc = (over: Partial<ProcessView> = {}): ProcessView => ({
  id: 1,
  node: 'n1',
  podUid: 'u1',
  podName: 'web-0',
  namespace: 'shop',
  startedAt: 0,
  volumes: [],
  ...over,
});

const pod = (over: Partial<PodView> = {}): PodView => ({
  uid: 'u1',
  namespace: 'shop',
  name: 'web-0',
  node: 'n1',
  state: 'Running',
  ready: true,
  claims: [],
  resourceVersion: '1',
  ...over,
});

function api(pods: PodView[], nodes: Record<string, NodeState>): ApiView {
  return {
    podByUid: (uid) => pods.find((p) => p.uid === uid),
    podByName: (ns, name) => pods.find((p) => p.namespace === ns && p.name === name),
    nodeState: (n) => nodes[n],
  };
}

describe('findGhosts', () => {
  it.each<
    [
      string,
      PodView[],
      Record<string, NodeState>,
      string | undefined,
      boolean | undefined,
      RegExp | undefined,
    ]
  >([
    ['seen: pod on a Ready node', [pod()], { n1: 'Ready' }, undefined, undefined, undefined],
    ['pod deleted, process runs', [], { n1: 'Unknown' }, 'pod-deleted', true, /gone from the API/],
    [
      'pod replaced elsewhere (same name, new uid)',
      [pod({ uid: 'u2', node: 'n2' })],
      { n1: 'Unknown', n2: 'Ready' },
      'pod-replaced',
      true,
      /new pod on n2/,
    ],
    [
      'API has the pod on another node',
      [pod({ node: 'n2' })],
      { n1: 'Ready' },
      'pod-elsewhere',
      true,
      /on n2/,
    ],
    [
      'node Unknown: the API cannot see it',
      [pod({ state: 'Terminating' })],
      { n1: 'Unknown' },
      'node-unseen',
      false,
      /node Unknown, pod shown Terminating/,
    ],
    ['node NotReady', [pod()], { n1: 'NotReady' }, 'node-unseen', false, /node NotReady/],
    ['node gone from the API', [pod()], {}, 'node-unseen', false, /node gone/],
  ])('%s', (_what, pods, nodes, reason, critical, message) => {
    const ghosts = findGhosts([proc()], api(pods, nodes));
    if (!reason) return expect(ghosts).toEqual([]);
    expect(ghosts).toHaveLength(1);
    expect(ghosts[0]).toMatchObject({ reason, critical, id: 1, node: 'n1' });
    expect(ghosts[0].message).toMatch(message!);
  });

  it('lists critical ghosts first, then by node and pod', () => {
    const ghosts = findGhosts(
      [
        proc({ id: 1, node: 'n2', podUid: 'a', podName: 'a' }),
        proc({ id: 2, node: 'n1', podUid: 'gone', podName: 'z' }),
        proc({ id: 3, node: 'n1', podUid: 'b', podName: 'b' }),
      ],
      api([pod({ uid: 'a', name: 'a', node: 'n2' }), pod({ uid: 'b', name: 'b', node: 'n1' })], {
        n1: 'Unknown',
        n2: 'Unknown',
      }),
    );
    expect(ghosts.map((g) => g.id)).toEqual([2, 3, 1]);
    expect(ghostsByNode(ghosts).get('n1')).toEqual({ total: 2, critical: 1 });
    expect(ghostsByNode(ghosts).get('n2')).toEqual({ total: 1, critical: 0 });
  });
});
