import { describe, expect, it } from 'vitest';
import type { NodeView } from '../protocol';
import { deletionRequestedAt, isOverdue, nodeDisplayState, showsHeartbeatAge } from './states';

const base = {
  ready: 'Ready' as const,
  unschedulable: false,
  taints: [] as NodeView['taints'],
  lastHeartbeat: 1000,
};
const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

describe('nodeDisplayState', () => {
  const cases: { name: string; node: Partial<typeof base>; now: number; want: string }[] = [
    { name: 'ready', node: {}, now: 2000, want: 'ready' },
    { name: 'cordoned', node: { unschedulable: true }, now: 2000, want: 'cordoned' },
    {
      name: 'not ready beats cordoned',
      node: { ready: 'NotReady' as never, unschedulable: true },
      now: 2000,
      want: 'not-ready',
    },
    { name: 'unknown', node: { ready: 'Unknown' as never }, now: 2000, want: 'unknown' },
    {
      name: 'out-of-service beats unknown',
      node: { ready: 'Unknown' as never, taints: [oos] },
      now: 2000,
      want: 'out-of-service',
    },
    { name: 'stale heartbeat on Ready is suspect', node: {}, now: 1000 + 26_000, want: 'suspect' },
    { name: 'fresh heartbeat stays ready', node: {}, now: 1000 + 24_000, want: 'ready' },
    {
      name: 'no heartbeat known is not suspect',
      node: { lastHeartbeat: undefined },
      now: 1e12,
      want: 'ready',
    },
  ];
  for (const c of cases)
    it(c.name, () => expect(nodeDisplayState({ ...base, ...c.node }, c.now)).toBe(c.want));
});

describe('showsHeartbeatAge', () => {
  it.each([
    ['ready', false],
    ['cordoned', false],
    ['unknown', true],
    ['suspect', true],
    ['not-ready', true],
  ] as const)('%s -> %s', (s, want) => expect(showsHeartbeatAge(s)).toBe(want));
});

describe('termination times', () => {
  it.each([
    [{ deletionTimestamp: 30_000, deletionGracePeriodSeconds: 30 }, 0],
    [{ deletionTimestamp: 30_000, deletionGracePeriodSeconds: undefined }, 30_000],
    [{ deletionTimestamp: undefined, deletionGracePeriodSeconds: 30 }, undefined],
  ])('requested at %o -> %s', (pod, want) => expect(deletionRequestedAt(pod)).toBe(want));

  it.each([
    ['Terminating', 10_000, 10_001, true],
    ['Terminating', 10_000, 10_000, false],
    ['Running', 10_000, 20_000, false],
    ['Terminating', undefined, 20_000, false],
  ] as const)('%s deadline %s at %s overdue=%s', (state, ts, now, want) =>
    expect(isOverdue({ state, deletionTimestamp: ts }, now)).toBe(want),
  );
});
