import { describe, expect, it } from 'vitest';
import { type EvictInput, judgeEvict } from './evict';

const pod = (p: Partial<EvictInput['pod']> = {}): EvictInput['pod'] => ({
  namespace: 'shop',
  name: 'orders-db-1',
  uid: 'u1',
  controller: 'StatefulSet',
  mirror: false,
  terminating: false,
  emptyDir: false,
  nodeName: 'b1-1',
  ...p,
});
const node = (ready: 'True' | 'False' | 'Unknown' = 'True') => ({ name: 'b1-1', ready, taints: [] });
const full = { kind: 'StatefulSet', name: 'orders-db', ready: 3, desired: 3 };

type Row = [string, EvictInput, 'safe' | 'unsafe' | 'refused', RegExp[]];

describe('judgeEvict', () => {
  it.each<Row>([
    [
      'a replica of a workload at full strength, on a Ready node: safe, the budgets decide',
      { pod: pod(), node: node(), controller: full },
      'safe',
      [
        /Eviction API decides: a PodDisruptionBudget or PodProtector/,
        /its StatefulSet creates the replacement/,
      ],
    ],
    [
      'the workload below full strength: unsafe, with the numbers',
      { pod: pod(), node: node(), controller: { ...full, ready: 2 } },
      'unsafe',
      [/^StatefulSet orders-db has 2 of 3 replicas ready: evicting one now leaves 1 until/],
    ],
    [
      'on a node that is not Ready: unsafe, fence instead',
      { pod: pod(), node: node('Unknown'), controller: full },
      'unsafe',
      [/^node b1-1 is unreachable .*an eviction only marks the pod Terminating.*Fence the node instead/],
    ],
    [
      'no controller: gone for good',
      { pod: pod({ controller: undefined }), node: node() },
      'unsafe',
      [/has no controller: evicted, it is gone for good/],
    ],
    [
      'already Terminating: refused',
      { pod: pod({ terminating: true }), node: node() },
      'refused',
      [/already Terminating/],
    ],
    ['a mirror pod: refused', { pod: pod({ mirror: true }), node: node() }, 'refused', [/static pod/]],
    [
      'a DaemonSet pod: refused, it comes back on the same node',
      { pod: pod({ controller: 'DaemonSet' }), node: node() },
      'refused',
      [/DaemonSet: its replacement runs on the same node again/],
    ],
    [
      'the controller not readable: judged on the rest',
      { pod: pod(), node: node() },
      'safe',
      [/creates the replacement/],
    ],
  ])('%s', (_, input, want, texts) => {
    const v = judgeEvict(input);
    const kind = v.safe ? 'safe' : v.overridable ? 'unsafe' : 'refused';
    expect(kind).toBe(want);
    const words = v.safe ? v.notes : [...v.reasons, ...v.notes];
    for (const t of texts) expect(words).toContainEqual(expect.stringMatching(t));
  });

  it('emptyDir is a warning, not a reason', () => {
    const v = judgeEvict({ pod: pod({ emptyDir: true }), node: node(), controller: full });
    expect(v.safe).toBe(true);
    expect(v.warnings).toEqual(['shop/orders-db-1 uses emptyDir: its data is deleted with the pod']);
  });
});
