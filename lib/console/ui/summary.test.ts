import { describe, expect, it } from 'vitest';
import type { NodeView, PodView } from '../protocol';
import { summarize } from './summary';

const node = (over: Partial<NodeView>): NodeView => ({
  name: 'n',
  zone: 'z',
  rack: 'r',
  ready: 'Ready',
  unschedulable: false,
  taints: [],
  conditions: [],
  capacity: {},
  resourceVersion: '1',
  ...over,
});
const pod = (over: Partial<PodView>): PodView => ({
  uid: 'u',
  namespace: 'ns',
  name: 'p',
  state: 'Ready',
  ready: true,
  claims: [],
  resourceVersion: '1',
  node: 'n',
  ...over,
});

describe('summarize', () => {
  it('counts nodes and pods by state, overdue and unscheduled', () => {
    const s = summarize(
      [node({}), node({ ready: 'Unknown' }), node({ unschedulable: true }), node({ ready: 'NotReady' })],
      [
        pod({}),
        pod({ state: 'Pending', node: undefined }),
        pod({ state: 'Terminating', deletionTimestamp: 5_000 }),
        pod({ state: 'Terminating', deletionTimestamp: 50_000 }),
      ],
      10_000,
    );
    expect(s.nodes.total).toBe(4);
    expect(s.nodes.byState).toMatchObject({ ready: 1, unknown: 1, cordoned: 1, 'not-ready': 1 });
    expect(s.pods.total).toBe(4);
    expect(s.pods.byState).toMatchObject({ Ready: 1, Pending: 1, Terminating: 2 });
    expect(s.pods.overdue).toBe(1);
    expect(s.pods.unscheduled).toBe(1);
  });
  it('is all zeros for an empty cluster', () => {
    const s = summarize([], [], 0);
    expect([s.nodes.total, s.pods.total, s.pods.overdue]).toEqual([0, 0, 0]);
  });
});
