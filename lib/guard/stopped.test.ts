import { describe, expect, it } from 'vitest';
import type { Phase } from '../fencing/types';
import { type HolderFacts, holderStopped } from './stopped';
import type { FenceFacts, NodeFacts } from './types';

const node = (n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'c2-2',
  uid: 'node-uid',
  ready: 'True',
  taints: [],
  bootId: 'boot-1',
  ...n,
});
const fence = (phase: Phase, f: Partial<FenceFacts> = {}): FenceFacts => ({
  name: 'c2-2',
  nodeName: 'c2-2',
  phase,
  nodeUid: 'node-uid',
  nodeBootId: 'boot-1',
  ...f,
});
const running = { name: 'metrics-b48lf', nodeName: 'c2-2', phase: 'Running' };
const terminating = { ...running, deletionTimestamp: '2026-01-01T05:38:45Z' };
const unreachable = node({ ready: 'Unknown' });

type Row = [string, Omit<HolderFacts, 'name'>, boolean, string, RegExp?];

describe('holderStopped: has the pod stopped for sure?', () => {
  it.each<Row>([
    ['running on a Ready node', { pod: running, node: node() }, false, 'running'],
    ['never scheduled', { pod: { name: 'x' } }, true, 'not-scheduled'],
    [
      'Terminating on a Ready node: its kubelet is stopping it',
      { pod: terminating, node: node() },
      false,
      'terminating',
    ],
    [
      // the finding of issue 23: evicted by the unreachable taint, still running there
      'Terminating on an unreachable node, not fenced',
      { pod: terminating, node: unreachable },
      false,
      'node-unreachable',
      /^metrics-b48lf on c2-2: node unreachable \(Ready=Unknown\), not fenced$/,
    ],
    [
      'Terminating on an unreachable node whose fence is still Fencing',
      { pod: terminating, node: unreachable, fence: fence('Fencing') },
      false,
      'node-unreachable',
      /not fenced \(NodeFence c2-2 is Fencing/,
    ],
    [
      'Succeeded, reported from a Ready node',
      { pod: { ...running, phase: 'Succeeded' }, node: node() },
      true,
      'finished',
    ],
    [
      'Failed on a NotReady node: the kubelet cannot have said so (the pod GC may have)',
      { pod: { ...running, phase: 'Failed' }, node: node({ ready: 'False' }) },
      false,
      'node-unreachable',
    ],
    ['node Fenced', { pod: terminating, node: unreachable, fence: fence('Fenced') }, true, 'node-fenced'],
    [
      'node Releasing',
      { pod: terminating, node: unreachable, fence: fence('Releasing') },
      true,
      'node-fenced',
    ],
    ['node Released', { pod: terminating, node: unreachable, fence: fence('Released') }, true, 'node-fenced'],
    [
      'a fence Recovered: the node is back, its pods run for real',
      { pod: running, node: node(), fence: fence('Recovered') },
      false,
      'running',
    ],
    [
      'a fence about an earlier boot of the node',
      { pod: running, node: unreachable, fence: fence('Released', { nodeBootId: 'boot-0' }) },
      false,
      'node-unreachable',
      /earlier boot/,
    ],
    [
      'a fence about an earlier node of that name',
      { pod: running, node: node({ uid: 'new', ready: 'Unknown' }), fence: fence('Fenced') },
      false,
      'node-unreachable',
    ],
    [
      'the recorded boot is the fenced one, though the node booted again since',
      {
        pod: terminating,
        bootId: 'boot-1',
        node: node({ bootId: 'boot-2', ready: 'Unknown' }),
        fence: fence('Released'),
      },
      true,
      'node-fenced',
    ],
    [
      'Terminating, and the node booted again since the pod took its ID there',
      { pod: terminating, bootId: 'boot-1', node: node({ bootId: 'boot-2', ready: 'Unknown' }) },
      true,
      'node-rebooted',
    ],
    [
      'gone from the API, not seen going, and the node booted again since',
      { nodeName: 'c2-2', bootId: 'boot-1', node: node({ bootId: 'boot-2' }) },
      true,
      'node-rebooted',
    ],
    [
      // fault run, seeds 3 and 4: power-cycled, restarted in place, its ID given to another pod
      'still listed, not Terminating, and the node booted again: its kubelet started it again',
      { pod: running, bootId: 'boot-1', node: node({ bootId: 'boot-2' }) },
      false,
      'running',
      /running again since node c2-2 booted again/,
    ],
    [
      'still listed, the node booted again and is unreachable now: it may run',
      { pod: running, bootId: 'boot-1', node: node({ bootId: 'boot-2', ready: 'Unknown' }) },
      false,
      'node-unreachable',
    ],
    [
      'still listed, its node fenced in the boot it ran in, then booted again: it may run again',
      { pod: running, bootId: 'boot-1', node: node({ bootId: 'boot-2' }), fence: fence('Released') },
      false,
      'running',
    ],
    [
      'Failed, still listed, on a node that booted again: its kubelet does not start it',
      { pod: { ...running, phase: 'Failed' }, bootId: 'boot-1', node: node({ bootId: 'boot-2' }) },
      true,
      'node-rebooted',
    ],
    ['the Node object is gone', { pod: terminating, node: undefined }, true, 'node-gone'],
    [
      'gone from the API by its kubelet’s own delete',
      { departure: { confirmed: true, nodeName: 'c2-2' }, node: unreachable },
      true,
      'removed-by-kubelet',
    ],
    [
      'gone from the API (force-deleted), node unreachable',
      { departure: { confirmed: false, nodeName: 'c2-2' }, node: unreachable },
      false,
      'node-unreachable',
    ],
    [
      'gone from the API (force-deleted), node Ready: the orphan may still run until its kubelet gets to it',
      { departure: { confirmed: false, nodeName: 'c2-2' }, node: node() },
      false,
      'unconfirmed-removal',
    ],
    [
      'gone, not seen going, node recorded and fenced since',
      { nodeName: 'c2-2', bootId: 'boot-1', node: unreachable, fence: fence('Fenced') },
      true,
      'node-fenced',
    ],
    [
      'gone, not seen going, node recorded, node Ready',
      { nodeName: 'c2-2', bootId: 'boot-1', node: node() },
      false,
      'unconfirmed-removal',
    ],
    ['gone, where it ran unknown', {}, false, 'node-unknown'],
  ])('%s', (_what, facts, stopped, reason, text) => {
    const v = holderStopped({ name: 'metrics-b48lf', ...facts });
    expect({ stopped: v.stopped, reason: v.reason }).toEqual({ stopped, reason });
    if (text) expect(v.text).toMatch(text);
  });
});
