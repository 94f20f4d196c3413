import { describe, expect, it } from 'vitest';
import type { NodeView, PodView } from '../console/protocol';
import { previewWatchKey, refetchDelayMs } from './livePreview';

const node = (n: Partial<NodeView> = {}): NodeView => ({
  name: 'a2-1',
  zone: 'a',
  rack: '2',
  ready: 'True' as NodeView['ready'],
  readySince: 1,
  lastHeartbeat: 10,
  unschedulable: false,
  taints: [],
  conditions: [],
  capacity: {},
  resourceVersion: '1',
  ...n,
});
const pod = (p: Partial<PodView> = {}): PodView =>
  ({
    uid: 'u1',
    namespace: 'shop',
    name: 'db-0',
    node: 'a2-1',
    state: 'Running',
    ready: true,
    claims: [],
    ...p,
  }) as PodView;

describe('previewWatchKey', () => {
  const base = previewWatchKey(node(), pod());
  it.each<[string, NodeView | undefined, PodView | undefined, boolean]>([
    [
      'a heartbeat changes nothing the guard reads',
      node({ lastHeartbeat: 20, resourceVersion: '2' }),
      pod(),
      false,
    ],
    ['the node goes Unknown', node({ ready: 'Unknown' as NodeView['ready'], readySince: 5 }), pod(), true],
    [
      'the out-of-service taint',
      node({ taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] }),
      pod(),
      true,
    ],
    ['cordoned', node({ unschedulable: true }), pod(), true],
    ['the pod replaced (new uid)', node(), pod({ uid: 'u2' }), true],
    ['the pod Terminating', node(), pod({ state: 'Terminating', deletionTimestamp: 3 }), true],
    ['the pod gone', node(), undefined, true],
    ['the node gone', undefined, pod(), true],
  ])('%s', (_what, n, p, changed) => {
    expect(previewWatchKey(n, p) !== base).toBe(changed);
  });
});

describe('refetchDelayMs', () => {
  it.each<[number | undefined, number, number | undefined]>([
    [undefined, 0, undefined],
    [8_000, 0, 9_000],
    [0, 5_000, 1_000],
  ])('fence at %s, now %s', (at, now, want) => expect(refetchDelayMs(at, now)).toBe(want));
});
