import { describe, expect, it } from 'vitest';
import { PHASES, type Phase } from '../fencing/types';
import { judgeApproveFence, judgeCancelAnnounced, judgeCancelFence } from './fence';
import { judgeRemoveOutOfServiceTaint } from './outOfService';
import type { FenceFacts, NodeFacts } from './types';

const OOS = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
const node = (n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'a1-2',
  uid: 'u',
  ready: 'Unknown',
  taints: [OOS],
  ...n,
});
const fence = (phase: Phase, f: Partial<FenceFacts> = {}): FenceFacts => ({
  name: 'a1-2',
  nodeName: 'a1-2',
  phase,
  nodeUid: 'u',
  ...f,
});

type Outcome = 'safe' | 'unsafe' | 'refused';
const outcome = (v: ReturnType<typeof judgeCancelFence>): Outcome =>
  v.safe ? 'safe' : v.overridable ? 'unsafe' : 'refused';
const text = (v: ReturnType<typeof judgeCancelFence>) => (v.safe ? v.notes : v.reasons).join('\n');

describe('judgeCancelFence: refused once the agent has run', () => {
  const expected: Record<Phase, Outcome> = {
    Detected: 'safe',
    AwaitingApproval: 'safe',
    Fencing: 'refused',
    Fenced: 'refused',
    Releasing: 'refused',
    Released: 'refused',
    Recovered: 'refused',
    Failed: 'safe',
    Cancelled: 'refused',
  };
  it.each(PHASES.map((p) => [p, expected[p]] as const))('%s -> %s', (phase, want) => {
    expect(outcome(judgeCancelFence({ fence: fence(phase) }))).toBe(want);
  });

  it('says why: the agent has run, or it is over', () => {
    expect(text(judgeCancelFence({ fence: fence('Fencing') }))).toMatch(/agent has run .*cannot undo/);
    expect(text(judgeCancelFence({ fence: fence('Recovered') }))).toMatch(/it is over/);
    expect(text(judgeCancelFence({ fence: fence('Failed') }))).toMatch(/gave it up/);
  });

  it('refuses a second cancellation', () => {
    const v = judgeCancelFence({ fence: fence('AwaitingApproval', { cancelRequestedBy: 'alice' }) });
    expect(outcome(v)).toBe('refused');
    expect(text(v)).toMatch(/alice already asked to cancel it/);
  });
});

describe('judgeApproveFence', () => {
  it.each<[string, FenceFacts, NodeFacts | undefined, Outcome, RegExp]>([
    [
      'awaiting approval, node unreachable: safe',
      fence('AwaitingApproval'),
      node(),
      'safe',
      /powers a1-2 off/,
    ],
    ['Detected (manual policy about to ask): safe', fence('Detected'), node(), 'safe', /fence agent/],
    ['node Ready again: unsafe', fence('AwaitingApproval'), node({ ready: 'True' }), 'unsafe', /Ready again/],
    ['already fencing: refused', fence('Fencing'), node(), 'refused', /only a fence that waits/],
    [
      'already approved: refused',
      fence('AwaitingApproval', { approvedBy: 'bob' }),
      node(),
      'refused',
      /already approved by bob/,
    ],
    [
      'cancel requested: refused',
      fence('AwaitingApproval', { cancelRequestedBy: 'carol' }),
      node(),
      'refused',
      /carol already asked to cancel/,
    ],
    ['node gone: refused', fence('AwaitingApproval'), undefined, 'refused', /no longer exists/],
    ['node re-created: refused', fence('AwaitingApproval'), node({ uid: 'other' }), 'refused', /re-created/],
  ])('%s', (_what, f, n, want, re) => {
    const v = judgeApproveFence({ fence: f, node: n });
    expect(outcome(v)).toBe(want);
    expect(text(v)).toMatch(re);
  });
});

describe('judgeRemoveOutOfServiceTaint', () => {
  it.each<[string, NodeFacts, FenceFacts | undefined, Outcome, RegExp[]]>([
    [
      'no taint: refused',
      node({ taints: [] }),
      undefined,
      'refused',
      [/no node.kubernetes.io\/out-of-service taint/],
    ],
    [
      'Ready, no fence: safe',
      node({ ready: 'True' }),
      undefined,
      'safe',
      [/scheduler places pods there again/],
    ],
    ['Ready, fence Recovered: safe', node({ ready: 'True' }), fence('Recovered'), 'safe', [/Ready/]],
    [
      'Ready, fence Released: safe, the controller would remove it too',
      node({ ready: 'True' }),
      fence('Released'),
      'safe',
      [/removes the taint itself/],
    ],
    [
      'not Ready, fence Released: unsafe (release of leftovers stops)',
      node(),
      fence('Released'),
      'unsafe',
      [/stay Terminating/],
    ],
    [
      'not Ready, fence Releasing: unsafe twice',
      node(),
      fence('Releasing'),
      'unsafe',
      [
        /unreachable \(Ready=Unknown\): the taint is what lets Kubernetes release/,
        /controller puts the taint back/,
      ],
    ],
    [
      'Ready but still Fenced: unsafe',
      node({ ready: 'True' }),
      fence('Fenced'),
      'unsafe',
      [/Fenced: the fencing controller/],
    ],
    [
      'not Ready, no fence (a person put it there): unsafe',
      node({ ready: 'False' }),
      undefined,
      'unsafe',
      [/NotReady/],
    ],
  ])('%s', (_what, n, f, want, res) => {
    const v = judgeRemoveOutOfServiceTaint({ node: n, nodeFence: f });
    expect(outcome(v)).toBe(want);
    const lines = v.safe ? v.notes : v.reasons;
    for (const re of res)
      expect(
        lines.some((l) => re.test(l)),
        `${re} in ${lines.join(' / ')}`,
      ).toBe(true);
    if (want === 'unsafe' && !v.safe) expect(v.reasons).toHaveLength(res.length);
  });
});

describe('judgeCancelAnnounced: a fence announced before its NodeFence exists', () => {
  const policy = { name: 'demo', paused: false };
  it('says what happens next in whole sentences (issue 25: one was cut after "its next incident is")', () => {
    const v = judgeCancelAnnounced({ nodeName: 'a1-2', node: node(), policy });
    expect(text(v)).toMatch(
      /once a1-2 has been healthy again, a new incident is announced and fenced as usual/,
    );
  });
  it.each<[string, Parameters<typeof judgeCancelAnnounced>[0], Outcome, RegExp]>([
    [
      'unreachable, covered: safe',
      { nodeName: 'a1-2', node: node(), policy },
      'safe',
      /FencePolicy demo announced for a1-2 is cancelled before it starts/,
    ],
    ['no policy: refused', { nodeName: 'a1-2', node: node() }, 'refused', /no fence is coming/],
    ['Ready: refused', { nodeName: 'a1-2', node: node({ ready: 'True' }), policy }, 'refused', /is Ready/],
    ['no node: refused', { nodeName: 'a1-2', policy }, 'refused', /nothing to cancel/],
  ])('%s', (_n, i, want, says) => {
    const v = judgeCancelAnnounced(i);
    expect(outcome(v)).toBe(want);
    expect(text(v)).toMatch(says);
  });
});
