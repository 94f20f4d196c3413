import { describe, expect, it } from 'vitest';
import type { NodeView } from '../protocol';
import {
  deletionRequestedAt,
  isOverdue,
  NODE_DISPLAY_STATES,
  NODE_DOT_CLASS,
  NODE_MARK_CLASS,
  NODE_SHAPE,
  NODE_STATE_LABEL,
  nodeDisplayState,
  showsHeartbeatAge,
  tileStateText,
} from './states';

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

// Issue 18: Suspect and Unknown shared one amber dot and the Unknown tile said nothing.
describe('node states are never told by colour alone', () => {
  it('every state has its own shape, so states that share a colour still differ', () => {
    const shapes = NODE_DISPLAY_STATES.map((s) => NODE_SHAPE[s]);
    expect(new Set(shapes).size).toBe(NODE_DISPLAY_STATES.length);
    expect(NODE_DOT_CLASS.suspect).toBe(NODE_DOT_CLASS.unknown);
    expect(NODE_SHAPE.suspect).not.toBe(NODE_SHAPE.unknown);
  });
  it('every mark carries both its colour and its shape', () => {
    for (const s of NODE_DISPLAY_STATES) {
      expect(NODE_MARK_CLASS[s]).toContain(NODE_DOT_CLASS[s]);
      expect(NODE_MARK_CLASS[s]).toMatch(/\[clip-path:/);
    }
    expect(new Set(Object.values(NODE_MARK_CLASS)).size).toBe(NODE_DISPLAY_STATES.length);
  });
  const cases: { state: (typeof NODE_DISPLAY_STATES)[number]; text: string | undefined }[] = [
    { state: 'ready', text: undefined },
    { state: 'suspect', text: 'Suspect' },
    { state: 'unknown', text: 'Unknown' },
    { state: 'not-ready', text: 'NotReady' },
    { state: 'cordoned', text: 'Cordoned' },
    { state: 'out-of-service', text: 'Out of service' },
  ];
  for (const c of cases)
    it(`a ${c.state} tile says ${c.text ?? 'nothing (the calm default)'}`, () => {
      expect(tileStateText(c.state)).toBe(c.text);
      if (c.text) expect(NODE_STATE_LABEL[c.state]).toBe(c.text);
    });
});
