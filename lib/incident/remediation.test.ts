import { describe, expect, it } from 'vitest';
import { fence, input, NOW, node, noFencing, pod } from './fixtures.test-helpers';
import { remediationOf } from './remediation';
import { humanStepText } from './text';
import type { FencingInput, HumanStep } from './types';

const OOS = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
const covering = (more: Partial<FencingInput> = {}): FencingInput => ({
  ...noFencing,
  enabled: true,
  covered: 'all',
  ...more,
});

describe('remediationOf: the next human step per failed node', () => {
  it.each<[string, ReturnType<typeof node>, FencingInput, HumanStep, string]>([
    [
      'no policy covers it',
      node('a2-1', 'Unknown'),
      noFencing,
      { step: 'fence-manually', why: 'no-policy' },
      'no FencePolicy covers a2-1: power it off or cut its storage, confirm, then mark it out of service',
    ],
    [
      'announced: wait, with the countdown',
      node('a2-1', 'Unknown'),
      covering({ upcoming: [{ node: 'a2-1', policy: 'p', fenceAt: NOW + 8_000, paused: false }] }),
      { step: 'wait-for-fence', fenceAt: NOW + 8_000, paused: false },
      'wait: fence in 8 s',
    ],
    [
      'a cancelled fence of an earlier incident, announced again: the new incident counts',
      node('a2-1', 'Unknown'),
      covering({
        fences: [fence('a2-1', 'Cancelled')],
        upcoming: [{ node: 'a2-1', policy: 'p', fenceAt: NOW + 8_000, paused: false }],
      }),
      { step: 'wait-for-fence', fenceAt: NOW + 8_000, paused: false },
      'wait: fence in 8 s',
    ],
    [
      'a cancelled fence, not announced (its own incident): fence it by hand',
      node('a2-1', 'Unknown'),
      covering({ fences: [fence('a2-1', 'Cancelled')] }),
      { step: 'fence-manually', why: 'cancelled' },
      'its fence was cancelled: fence a2-1 by hand',
    ],
    [
      'detected, its policy paused: held, no countdown (issue 25, finding 3)',
      node('a2-1', 'Unknown'),
      covering({ fences: [fence('a2-1', 'Detected', { fenceAt: NOW + 8_000, paused: true })] }),
      { step: 'wait-for-fence', fence: 'a2-1', phase: 'Detected', fenceAt: NOW + 8_000, paused: true },
      'the fence of a2-1 is held: its policy is paused (resume it, or fence a2-1 by hand)',
    ],
    [
      'awaiting approval',
      node('a2-1', 'Unknown'),
      covering({ fences: [fence('a2-1', 'AwaitingApproval', { manual: true })] }),
      { step: 'approve-fence', fence: 'a2-1' },
      'approve the fence a2-1',
    ],
    [
      'released: powered off and out of service, a person must act',
      node('a2-1', 'Unknown', { taints: [OOS] }),
      covering({ fences: [fence('a2-1', 'Released')] }),
      { step: 'power-on-or-repair', removeTaint: true },
      'power on or repair a2-1, then remove the out-of-service taint',
    ],
    [
      'back Ready with the taint still on',
      node('a2-1', 'Ready', { taints: [OOS] }),
      noFencing,
      { step: 'remove-out-of-service-taint' },
      'a2-1 is back: remove the out-of-service taint',
    ],
    [
      'the budget holds it',
      node('a2-1', 'NotReady'),
      covering({ held: [{ node: 'a2-1', reason: 'budget', why: 'x' }] }),
      { step: 'budget-holds-fence', why: 'x' },
      'the fencing budget holds its fence: confirm a2-1 is down, not cut off by a network split',
    ],
    [
      'suspect (late heartbeats): watch it',
      node('a2-1', 'Ready', { lastHeartbeat: NOW - 30_000 }),
      noFencing,
      { step: 'wait-for-heartbeat' },
      'watch a2-1: its heartbeats are late',
    ],
  ])('%s', (_, n, fencing, step, text) => {
    const rows = remediationOf(input({ nodes: [n, node('ok')], fencing }));
    expect(rows.map((r) => r.node)).toEqual(['a2-1']);
    expect(rows[0].next).toEqual(step);
    expect(humanStepText('a2-1', rows[0].next, NOW)).toBe(text);
  });

  it('names the VolumeAttachments still on the node, its pods, the time in state and the next timeout', () => {
    const [r] = remediationOf(
      input({
        nodes: [node('a', 'Unknown', { readySince: NOW - 90_000 })],
        pods: [pod('p', 'a'), pod('done', 'a', { phase: 'Failed' })],
        fencing: covering({
          fences: [fence('a', 'Fencing', { attemptStartedAt: NOW - 10_000, timeoutMs: 60_000 })],
        }),
        volumes: [
          {
            pv: 'pv-1',
            risk: 'stuck',
            exclusive: true,
            attachments: [
              { name: 'va-1', node: 'a', attached: true, detaching: true, forceDetachAt: NOW + 20_000 },
            ],
          },
        ],
      }),
    );
    expect(r).toMatchObject({
      since: NOW - 90_000,
      fence: { name: 'a', phase: 'Fencing' },
      outOfService: false,
      volumeAttachments: [{ name: 'va-1', pv: 'pv-1', detaching: true }],
      pods: 1,
      nextTimeout: { kind: 'force-detach', at: NOW + 20_000 },
      next: { step: 'wait-for-fence', fence: 'a', phase: 'Fencing' },
    });
  });

  it('no rows when every node is healthy', () => {
    expect(remediationOf(input({ nodes: [node('a'), node('b')] }))).toEqual([]);
  });
});

describe('a paused policy', () => {
  it('sets no fence-at timeout: nothing counts down while it holds the fence', () => {
    const f = covering({ fences: [fence('a2-1', 'Detected', { fenceAt: NOW + 8_000, paused: true })] });
    const [r] = remediationOf(input({ nodes: [node('a2-1', 'Unknown')], fencing: f }));
    expect(r!.nextTimeout).toBeUndefined();
    expect(r!.fence).toMatchObject({ paused: true, policy: 'p' });
    const running = covering({ fences: [fence('a2-1', 'Detected', { fenceAt: NOW + 8_000 })] });
    const [q] = remediationOf(input({ nodes: [node('a2-1', 'Unknown')], fencing: running }));
    expect(q!.nextTimeout).toEqual({ kind: 'fence-at', at: NOW + 8_000 });
  });
});
