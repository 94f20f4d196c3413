import { describe, expect, it } from 'vitest';
import { PHASES, type Phase } from '../fencing/types';
import { type FenceNodeInput, judgeFenceNode } from './fenceNode';
import type { Verdict } from './types';

const input = (i: Partial<FenceNodeInput> = {}): FenceNodeInput => ({
  nodeName: 'b1-1',
  node: { name: 'b1-1', uid: 'u', ready: 'Unknown', taints: [] },
  policy: { name: 'zones', paused: false },
  ...i,
});
const fence = (phase: Phase) => ({ name: 'b1-1', nodeName: 'b1-1', phase, nodeUid: 'u' });

type Outcome = 'safe' | 'unsafe' | 'refused';
const outcome = (v: Verdict): Outcome => (v.safe ? 'safe' : v.overridable ? 'unsafe' : 'refused');
const text = (v: Verdict) => [...(v.safe ? [] : v.reasons), ...v.notes].join('\n');

describe('judgeFenceNode', () => {
  it.each<[string, Partial<FenceNodeInput>, Outcome, RegExp]>([
    ['an unreachable node, no fence: safe', {}, 'safe', /powers b1-1 off .* at once \(no warning window\)/],
    [
      'NotReady works too',
      { node: { name: 'b1-1', ready: 'False', taints: [] } },
      'safe',
      /NotReady \(Ready=False\)/,
    ],
    [
      'the budget holds its fence: unsafe, saying why',
      { heldByBudget: 'fencing budget exceeded: 3 of 6 nodes unhealthy, at most 2 (maxUnhealthy 2) allowed' },
      'unsafe',
      /^fencing budget exceeded: 3 of 6 .* allowed; the budget holds automatic fences because .*control plane may be the one cut off/,
    ],
    ['no Node: refused', { node: undefined }, 'refused', /Node b1-1 does not exist/],
    ['no policy: refused, no agent', { policy: undefined }, 'refused', /no FencePolicy covers node b1-1/],
    [
      'a Ready node: refused',
      { node: { name: 'b1-1', ready: 'True', taints: [] } },
      'refused',
      /b1-1 is Ready/,
    ],
    [
      'a paused policy: refused, resume first',
      { policy: { name: 'zones', paused: true } },
      'refused',
      /FencePolicy zones is paused: resume it first/,
    ],
  ])('%s', (_name, i, want, says) => {
    const v = judgeFenceNode(input(i));
    expect(outcome(v)).toBe(want);
    expect(text(v)).toMatch(says);
  });

  const byPhase: Record<Phase, Outcome> = {
    Detected: 'refused',
    AwaitingApproval: 'refused',
    Fencing: 'refused',
    Fenced: 'refused',
    Releasing: 'refused',
    Released: 'refused',
    Recovered: 'safe',
    Failed: 'safe',
    Cancelled: 'safe',
  };
  it.each(PHASES.map((p) => [p, byPhase[p]] as const))('with a NodeFence %s -> %s', (phase, want) => {
    const v = judgeFenceNode(input({ fence: fence(phase) }));
    expect(outcome(v)).toBe(want);
    if (want === 'safe') expect(text(v)).toContain(`starts NodeFence b1-1 (${phase}) again`);
    if (phase === 'Detected') expect(text(v)).toMatch(/already coming/);
    if (phase === 'Fencing') expect(text(v)).toMatch(/already being fenced/);
  });
});
