// The dialogs' and Volumes page's outlook, read from the state machine's own decision: one row per
// way a node can stand. The property test that the outlook never disagrees with the machine on any
// world is in fuzz.test.ts.
import { describe, expect, it } from 'vitest';
import type { FenceOutlook } from '../guard/fenceOutlook.js';
import { durationWords, waitAdvice } from '../guard/waitWords.js';
import { judgeBudget } from './budget.js';
import type { PolicyEntry } from './coverage.js';
import type { NodeFacts } from './health.js';
import { fenceOutlook, type OutlookInput } from './outlook.js';
import { fencePolicySpec, type NodeFence, type Phase } from './types.js';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const node = (ready: string, since = NOW - 2_000, n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'a2-1',
  uid: 'u',
  labels: { zone: 'a' },
  conditions: [{ type: 'Ready', status: ready, lastTransitionTime: since }],
  taints: [],
  lease: { renewTime: NOW - 60_000, durationSeconds: 40 },
  ...n,
});
const policy = (name: string, spec: object = {}): PolicyEntry => ({
  name,
  spec: fencePolicySpec.parse({
    agent: { type: 'power' },
    warningWindow: '0s',
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '10s' }],
    ...spec,
  }),
});
const fence = (phase: Phase, status: object = {}, spec: object = {}): NodeFence => ({
  metadata: { name: 'a2-1', resourceVersion: '1' },
  spec: { nodeName: 'a2-1', policy: 'demo', ...spec },
  status: {
    phase,
    conditions: [],
    attempts: [],
    steps: [],
    nodeUid: 'u',
    detectedAt: iso(NOW - 1_000),
    message: '',
    ...status,
  },
});
const endedAt = (reason: string, at: number) => ({
  conditions: [{ type: 'Processing', status: 'False', reason, message: '', lastTransitionTime: iso(at) }],
});
const within = judgeBudget(policy('x').spec!, 6, 1);
const over = judgeBudget(policy('x', { maxUnhealthy: 2 }).spec!, 6, 3);
const input = (i: Partial<OutlookInput>): OutlookInput => ({
  now: NOW,
  nodeName: 'a2-1',
  node: node('Unknown'),
  policies: [policy('demo')],
  budget: () => within,
  ...i,
});
const held = `fencing budget exceeded: ${over.message}`;

describe('fenceOutlook', () => {
  it.each<[string, Partial<OutlookInput>, FenceOutlook]>([
    [
      'unhealthy 2 s of 10 s: pending at since + 10 s',
      {},
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000 },
    ],
    [
      'the warning window adds to it',
      { policies: [policy('demo', { warningWindow: '10s' })] },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 18_000 },
    ],
    [
      "a policy that names no window gets the controller's default (10 s), not none",
      { policies: [{ name: 'demo', spec: fencePolicySpec.parse({ agent: { type: 'power' } }) }] },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 298_000 + 10_000 },
    ],
    [
      'long enough already: due now',
      { node: node('Unknown', NOW - 60_000) },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW },
    ],
    [
      'a Manual policy: detected then, and it waits for approval',
      { policies: [policy('demo', { approval: 'Manual' })] },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000, manual: true },
    ],
    [
      'the first policy by name that selects the node',
      {
        policies: [
          policy('zeta'),
          policy('alpha', { nodeSelector: { matchLabels: { zone: 'b' } } }),
          policy('beta'),
        ],
      },
      { code: 'fence-pending', node: 'a2-1', policy: 'beta', fenceAt: NOW + 8_000 },
    ],
    [
      'a policy Palisade cannot read covers nothing',
      { policies: [{ name: 'aaa' }, policy('demo')] },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000 },
    ],
    [
      'healthy node: nothing comes',
      { node: node('True') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'healthy' },
    ],
    ['no policy covers it', { policies: [] }, { code: 'no-fence-coming', node: 'a2-1', why: 'no-policy' }],
    ['no Node object', { node: undefined }, { code: 'no-fence-coming', node: 'a2-1', why: 'no-node' }],
    [
      'a paused policy: no fence comes',
      { policies: [policy('demo', { paused: true })] },
      { code: 'fence-paused', node: 'a2-1', policy: 'demo' },
    ],
    [
      'a fence in its warning window',
      { fence: fence('Detected', { fenceAt: iso(NOW + 5_000) }) },
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
      {
        fence: fence('Fencing', { attempts: [{ number: 1, startedAt: iso(NOW - 500), result: 'Running' }] }),
      },
      {
        code: 'fence-in-progress',
        node: 'a2-1',
        fence: 'a2-1',
        policy: 'demo',
        phase: 'Fencing',
        fenceAt: NOW - 1_000,
      },
    ],
    [
      'a Detected fence of a paused policy is held',
      { fence: fence('Detected'), policies: [policy('demo', { paused: true })] },
      { code: 'fence-paused', node: 'a2-1', policy: 'demo' },
    ],
    [
      'a Manual fence awaiting approval',
      { fence: fence('AwaitingApproval'), policies: [policy('demo', { approval: 'Manual' })] },
      { code: 'fence-awaiting-approval', node: 'a2-1', fence: 'a2-1', policy: 'demo' },
    ],
    [
      'a Detected fence of a Manual policy asks for approval next',
      { fence: fence('Detected'), policies: [policy('demo', { approval: 'Manual' })] },
      { code: 'fence-awaiting-approval', node: 'a2-1', fence: 'a2-1', policy: 'demo' },
    ],
    [
      'the budget holds it: no fence comes yet',
      { node: node('Unknown', NOW - 60_000), budget: () => over },
      { code: 'fence-held', node: 'a2-1', policy: 'demo', why: held },
    ],
    [
      'not due yet, and over the budget when it is: held',
      { budget: () => over },
      { code: 'fence-held', node: 'a2-1', policy: 'demo', why: held },
    ],
    [
      'the budget holds a Detected fence before its agent',
      { fence: fence('Detected'), budget: () => over },
      { code: 'fence-held', node: 'a2-1', policy: 'demo', why: held },
    ],
    [
      'a person\u2019s Fence now is not held by the budget',
      {
        fence: fence('Detected', {}, { requestedBy: { by: 'ann', at: iso(NOW - 2_000) } }),
        budget: () => over,
      },
      {
        code: 'fence-in-progress',
        node: 'a2-1',
        fence: 'a2-1',
        policy: 'demo',
        phase: 'Detected',
        fenceAt: NOW - 1_000,
      },
    ],
    [
      'a healthy node is not held',
      { node: node('True'), budget: () => over },
      { code: 'no-fence-coming', node: 'a2-1', why: 'healthy' },
    ],
    [
      'already fenced',
      { fence: fence('Fenced') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'already-fenced' },
    ],
    [
      'a fence cancelled by a person in this incident holds the node',
      {
        node: node('Unknown', NOW - 60_000),
        fence: fence('Cancelled', endedAt('CancelledByUser', NOW - 30_000)),
      },
      { code: 'no-fence-coming', node: 'a2-1', why: 'fence-ended' },
    ],
    [
      'a fence failed in this incident holds the node',
      {
        node: node('Unknown', NOW - 60_000),
        fence: fence('Failed', endedAt('FenceAgentFailed', NOW - 30_000)),
      },
      { code: 'no-fence-coming', node: 'a2-1', why: 'fence-ended' },
    ],
    [
      'a fence of an earlier incident: the new one replaces it',
      { node: node('Unknown', NOW - 2_000), fence: fence('Recovered', { recoveredAt: iso(NOW - 600_000) }) },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 8_000 },
    ],
    [
      // the machine judges an ended fence under its own policy (the defaults, once deleted: 300 s),
      // and creates the new one under the policy that covers the node now
      'an ended fence whose policy is gone: replaced once the defaults call the node due',
      {
        node: node('Unknown', NOW - 2_000),
        fence: fence('Recovered', { recoveredAt: iso(NOW - 600_000) }, { policy: 'gone' }),
      },
      { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: NOW + 298_000 },
    ],
    [
      "a person's Fence now on an ended fence",
      {
        fence: fence('Failed', endedAt('FenceAgentFailed', NOW - 30_000), {
          requestedBy: { by: 'ann', at: iso(NOW - 1_000) },
        }),
      },
      {
        code: 'fence-in-progress',
        node: 'a2-1',
        fence: 'a2-1',
        policy: 'demo',
        phase: 'Detected',
        fenceAt: NOW,
      },
    ],
    [
      'a Detected fence whose node is healthy again is cancelled',
      { node: node('True'), fence: fence('Detected') },
      { code: 'no-fence-coming', node: 'a2-1', why: 'healthy' },
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
      'pending under a Manual policy',
      { code: 'fence-pending', node: 'a2-1', policy: 'm', fenceAt: NOW + 8_000, manual: true },
      NOW,
      'a2-1 is not fenced yet: FencePolicy m detects it in 8 s and asks a person to approve the fence (the policy is Manual); approve it on the Fencing page, wait for the fence, then force delete is safe',
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
