import { describe, expect, it } from 'vitest';
import type { NodeFacts } from '../fencing/health';
import { fencePolicySpec, type Phase } from '../fencing/types';
import {
  type FenceOutlook,
  fenceOutlook,
  type OutlookInput,
  type PolicyFacts,
  policyFactsOf,
} from './fenceOutlook';
import { durationWords, waitAdvice } from './waitWords';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const node = (ready: string, since = NOW - 2_000, n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'a2-1',
  uid: 'u',
  labels: { zone: 'a' },
  conditions: [{ type: 'Ready', status: ready, lastTransitionTime: since }],
  taints: [],
  lease: { renewTime: NOW - 60_000, durationSeconds: 40 },
  ...n,
});
const policy = (name: string, p: Partial<PolicyFacts> = {}, spec: object = {}): PolicyFacts => ({
  name,
  spec: fencePolicySpec.parse({
    agent: { type: 'power' },
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '10s' }],
    ...spec,
  }),
  paused: false,
  warningMs: 0,
  ...p,
});
const fence = (phase: Phase, fenceAt?: number) => ({
  name: 'a2-1',
  nodeName: 'a2-1',
  policy: 'demo',
  phase,
  fenceAt,
});
const input = (i: Partial<OutlookInput>): OutlookInput => ({
  node: node('Unknown'),
  policies: [policy('demo')],
  now: NOW,
  ...i,
});

describe('fenceOutlook', () => {
  it.each<[string, Partial<OutlookInput>, FenceOutlook]>([
    [
      'unhealthy 2 s of 10 s: pending at since + 10 s',
      {},
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000 },
    ],
    [
      'the warning window adds to it',
      { policies: [policy('demo', { warningMs: 10_000 })] },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 18_000 },
    ],
    [
      'long enough already: due now',
      { node: node('Unknown', NOW - 60_000) },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW },
    ],
    [
      'the first policy by name that selects the node',
      {
        policies: [
          policy('zeta'),
          policy('alpha', {}, { nodeSelector: { matchLabels: { zone: 'b' } } }),
          policy('beta'),
        ],
      },
      { code: 'fence-pending', node: 'a2-1', policy: 'beta', fenceAt: NOW + 8_000 },
    ],
    [
      'healthy node: nothing comes',
      { node: node('True') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'healthy' },
    ],
    ['no policy covers it', { policies: [] }, { code: 'no-fence-coming', node: 'a2-1', why: 'no-policy' }],
    [
      'a paused policy: no fence comes',
      { policies: [policy('demo', { paused: true })] },
      { code: 'fence-paused', node: 'a2-1', policy: 'demo' },
    ],
    [
      'a fence in its warning window',
      { fence: fence('Detected', NOW + 5_000) },
      {
        code: 'fence-in-progress',
        node: 'a2-1',
        fence: 'a2-1',
        policy: 'demo',
        phase: 'Detected',
        fenceAt: NOW + 5_000,
      },
    ],
    [
      'a fence whose agent runs',
      { fence: fence('Fencing') },
      { code: 'fence-in-progress', node: 'a2-1', fence: 'a2-1', policy: 'demo', phase: 'Fencing' },
    ],
    [
      'a Detected fence of a paused policy is held',
      { fence: fence('Detected'), policies: [policy('demo', { paused: true })] },
      { code: 'fence-paused', node: 'a2-1', policy: 'demo' },
    ],
    [
      'a Manual fence awaiting approval',
      { fence: fence('AwaitingApproval') },
      { code: 'fence-awaiting-approval', node: 'a2-1', fence: 'a2-1', policy: 'demo' },
    ],
    [
      'the budget holds it: no fence comes yet',
      { heldByBudget: '3 of 6 nodes unhealthy, maxUnhealthy 2' },
      { code: 'fence-held', node: 'a2-1', policy: 'demo', why: '3 of 6 nodes unhealthy, maxUnhealthy 2' },
    ],
    [
      'the budget holds a Detected fence',
      { fence: fence('Detected'), heldByBudget: 'budget' },
      { code: 'fence-held', node: 'a2-1', policy: 'demo', why: 'budget' },
    ],
    [
      'a fence whose agent runs is past the budget',
      { fence: fence('Fencing'), heldByBudget: 'budget' },
      { code: 'fence-in-progress', node: 'a2-1', fence: 'a2-1', policy: 'demo', phase: 'Fencing' },
    ],
    [
      'a healthy node is not held',
      { node: node('True'), heldByBudget: 'budget' },
      { code: 'no-fence-coming', node: 'a2-1', why: 'healthy' },
    ],
    [
      'already fenced',
      { fence: fence('Fenced') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'already-fenced' },
    ],
    [
      'a cancelled fence',
      { fence: fence('Cancelled') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'fence-ended' },
    ],
  ])('%s', (_what, i, want) => {
    expect(fenceOutlook(input(i))).toEqual(want);
  });
});

describe('waitAdvice', () => {
  it.each<[string, Parameters<typeof waitAdvice>[0], number, string]>([
    [
      'pending, counting down',
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000 },
      NOW,
      'a2-1 is not fenced yet: FencePolicy demo will fence it in 8 s; wait for the fence, then force delete is safe',
    ],
    [
      'pending, due',
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW - 1 },
      NOW,
      'a2-1 is not fenced yet: FencePolicy demo is due to fence it now; wait for the fence, then force delete is safe',
    ],
    [
      'in progress',
      { code: 'fence-in-progress', node: 'a2-1', fence: 'a2-1', policy: 'demo', phase: 'Fencing' },
      NOW,
      'a2-1 is not fenced yet: NodeFence a2-1 is Fencing; wait for the fence, then force delete is safe',
    ],
    [
      'in its warning window',
      {
        code: 'fence-in-progress',
        node: 'a2-1',
        fence: 'a2-1',
        policy: 'demo',
        phase: 'Detected',
        fenceAt: NOW + 61_000,
      },
      NOW,
      'a2-1 is not fenced yet: NodeFence a2-1 (FencePolicy demo) fences it in 1 min 1 s; wait for the fence, then force delete is safe',
    ],
  ])('%s', (_what, o, now, want) => {
    expect(waitAdvice(o, now)).toBe(want);
  });

  it('awaiting approval says to approve', () => {
    expect(
      waitAdvice({ code: 'fence-awaiting-approval', node: 'a2-1', fence: 'a2-1', policy: 'm' }, NOW),
    ).toMatch(/approve it on the Fencing page/);
  });
});

describe('durationWords', () => {
  it.each([
    [30_000, '30 s'],
    [360_000, '6 min'],
    [390_000, '6 min 30 s'],
    [7_200, '8 s'],
  ])('%d ms', (ms, want) => expect(durationWords(ms)).toBe(want));
});

describe('policyFactsOf', () => {
  const spec = fencePolicySpec.parse({ agent: { type: 'power' } });
  it.each<[string, unknown, boolean, number]>([
    ['a policy from before the warning window', {}, false, 0],
    ['a warning window and paused', { warningWindow: '10s', paused: true }, true, 10_000],
    ['a malformed window counts as none', { warningWindow: 'soon', paused: 'yes' }, false, 0],
  ])('%s', (_what, loose, paused, warningMs) => {
    expect(policyFactsOf('demo', spec, loose)).toMatchObject({ name: 'demo', paused, warningMs });
  });
});
