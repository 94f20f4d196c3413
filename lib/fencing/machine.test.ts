import { describe, expect, it } from 'vitest';
import { budgetMargin, judgeBudget } from './budget.js';
import { healthyForBudget, type NodeFacts } from './health.js';
import { decide, type FenceWorld } from './machine.js';
import { type Attempt, fencePolicySpec, type NodeFence, type Phase } from './types.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const ago = (s: number) => NOW - s * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const policy = (extra: Record<string, unknown> = {}) =>
  fencePolicySpec.parse({ agent: { type: 'power' }, retryCount: 2, retryInterval: '5s', ...extra });

function node(
  readyStatus: string,
  since: number,
  renewedAgo: number | null,
  extra: Partial<NodeFacts> = {},
): NodeFacts {
  return {
    name: 'n1',
    uid: 'uid-1',
    labels: {},
    bootId: 'boot-1',
    conditions: [{ type: 'Ready', status: readyStatus, lastTransitionTime: ago(since) }],
    taints: [],
    lease: renewedAgo === null ? undefined : { renewTime: ago(renewedAgo), durationSeconds: 40 },
    ...extra,
  };
}
const down = node('Unknown', 400, 400);
const up = node('True', 10, 1);

function fence(
  phase: Phase,
  extra: { attempts?: Attempt[]; spec?: object; status?: object } = {},
): NodeFence {
  return {
    metadata: { name: 'n1', resourceVersion: '1' },
    spec: { nodeName: 'n1', policy: 'p', ...extra.spec },
    status: {
      phase,
      conditions: [],
      attempts: extra.attempts ?? [],
      steps: [],
      nodeUid: 'uid-1',
      nodeBootId: 'boot-1',
      detectedAt: iso(ago(100)),
      fencedAt: phase === 'Released' ? iso(ago(60)) : undefined,
      message: '',
      ...extra.status,
    },
  };
}

/** The Processing condition a fence ended with, `secondsAgo` before NOW. */
const ended = (reason: string, secondsAgo: number) => ({
  type: 'Processing',
  status: 'False',
  reason,
  message: '',
  lastTransitionTime: iso(ago(secondsAgo)),
});

const attempt = (n: number, result: Attempt['result'], extra: Partial<Attempt> = {}): Attempt => ({
  number: n,
  startedAt: iso(ago(20)),
  finishedAt: result === 'Running' ? undefined : iso(ago(10)),
  result,
  output: '',
  ...extra,
});

const ok = { allowed: true, message: '', selected: 3, unhealthy: 1, maxUnhealthy: 1 };
const world = (w: Partial<FenceWorld>): FenceWorld => ({
  now: NOW,
  policy: policy(),
  node: down,
  budget: ok,
  podsOnNode: 0,
  attachmentsOnNode: 0,
  inFlight: false,
  ...w,
});

describe('decide', () => {
  const cases: [string, Partial<FenceWorld>, Record<string, unknown>][] = [
    ['healthy node: nothing', { node: up }, { kind: 'wait', reason: 'healthy', why: 'node is healthy' }],
    [
      'unhealthy, not long enough',
      { node: node('Unknown', 100, 100) },
      { kind: 'wait', reason: 'not-long-enough' },
    ],
    [
      'almost long enough: looks again when it is due',
      { node: node('Unknown', 299.7, 299.7) },
      { kind: 'wait', recheckMs: 300 },
    ],
    ['unhealthy long enough but the Lease is fresh', { node: node('Unknown', 400, 5) }, { kind: 'wait' }],
    [
      'fresh Lease ignored when the policy says so',
      { node: node('Unknown', 400, 5), policy: policy({ requireStaleLease: false }) },
      { kind: 'create' },
    ],
    ['Ready False counts by default', { node: node('False', 400, 400) }, { kind: 'create' }],
    ['unhealthy long enough: create', {}, { kind: 'create' }],
    [
      'budget exceeded: no fence',
      { budget: { allowed: false, message: '1 of 3 healthy', selected: 3, unhealthy: 2, maxUnhealthy: 1 } },
      { kind: 'wait', reason: 'budget' },
    ],
    ['no node object', { node: undefined }, { kind: 'wait', reason: 'no-node' }],
    ['Detected, automatic: fence', { fence: fence('Detected') }, { kind: 'phase', to: 'Fencing' }],
    [
      'Detected, manual: await approval',
      { fence: fence('Detected'), policy: policy({ approval: 'Manual' }) },
      { kind: 'phase', to: 'AwaitingApproval' },
    ],
    [
      'AwaitingApproval: waits',
      { fence: fence('AwaitingApproval'), policy: policy({ approval: 'Manual' }) },
      { kind: 'wait', reason: 'approval', why: 'waiting for approval' },
    ],
    [
      'AwaitingApproval, approved: fence',
      {
        fence: fence('AwaitingApproval', { spec: { approvedBy: 'ana' } }),
        policy: policy({ approval: 'Manual' }),
      },
      { kind: 'phase', to: 'Fencing' },
    ],
    [
      'cancel before the agent',
      {
        fence: fence('AwaitingApproval', {
          spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: 'planned work' } },
        }),
      },
      { kind: 'phase', to: 'Cancelled', reason: 'CancelledByUser' },
    ],
    [
      'a cancel after an agent ran is not honoured: the retry goes on',
      {
        fence: fence('Fencing', {
          attempts: [attempt(1, 'Failed')],
          spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: '' } },
        }),
      },
      { kind: 'run-agent', attempt: 2 },
    ],
    [
      'node back before fencing',
      { fence: fence('Detected'), node: up },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeRecovered' },
    ],
    [
      'node object deleted',
      { fence: fence('Fencing'), node: undefined },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeNotFound' },
    ],
    [
      'node re-created',
      { fence: fence('Fencing'), node: { ...down, uid: 'uid-2' } },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeReplaced' },
    ],
    [
      'policy deleted before the agent ran',
      { fence: fence('Fencing'), policyMissing: true },
      { kind: 'phase', to: 'Cancelled', reason: 'PolicyNotFound' },
    ],
    ['Fencing, first attempt', { fence: fence('Fencing') }, { kind: 'run-agent', attempt: 1 }],
    [
      'Fencing, budget exceeded before the agent',
      {
        fence: fence('Fencing'),
        budget: { allowed: false, message: 'x', selected: 3, unhealthy: 2, maxUnhealthy: 1 },
      },
      { kind: 'phase', to: 'Fencing', reason: 'BudgetExceeded' },
    ],
    [
      'agent running here: wait',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Running')] }), inFlight: true },
      { kind: 'wait' },
    ],
    [
      'attempt left Running by a stopped process: never re-run, mark it',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Running')] }) },
      { kind: 'interrupted', attempt: 1 },
    ],
    [
      'interrupted attempt: verify',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Interrupted')] }) },
      { kind: 'verify', attempt: 1 },
    ],
    [
      'agent says success: verify',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Succeeded')] }) },
      { kind: 'verify', attempt: 1 },
    ],
    [
      'verified: Fenced',
      {
        fence: fence('Fencing', {
          attempts: [
            attempt(1, 'Succeeded', {
              verification: { at: iso(NOW), state: 'off', confirmed: true, detail: '' },
            }),
          ],
        }),
      },
      { kind: 'phase', to: 'Fenced' },
    ],
    [
      'success not confirmed: retry after the interval',
      {
        fence: fence('Fencing', {
          attempts: [
            attempt(1, 'Succeeded', {
              finishedAt: iso(ago(6)),
              verification: { at: iso(NOW), state: 'on', confirmed: false, detail: '' },
            }),
          ],
        }),
      },
      { kind: 'run-agent', attempt: 2 },
    ],
    [
      'failed attempt: waits for the retry interval',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Failed', { finishedAt: iso(ago(2)) })] }) },
      { kind: 'wait', recheckMs: 3000 },
    ],
    [
      'timed out, retries left',
      { fence: fence('Fencing', { attempts: [attempt(1, 'TimedOut')] }) },
      { kind: 'run-agent', attempt: 2 },
    ],
    [
      'retries exhausted: Failed',
      { fence: fence('Fencing', { attempts: [attempt(1, 'Failed'), attempt(2, 'TimedOut')] }) },
      { kind: 'phase', to: 'Failed' },
    ],
    [
      'claimed success with power on, retries exhausted: Failed',
      {
        fence: fence('Fencing', {
          attempts: [
            attempt(1, 'Failed'),
            attempt(2, 'Succeeded', {
              verification: { at: iso(NOW), state: 'on', confirmed: false, detail: '' },
            }),
          ],
        }),
      },
      { kind: 'phase', to: 'Failed' },
    ],
    ['Fenced: release', { fence: fence('Fenced') }, { kind: 'release', strategy: 'OutOfServiceTaint' }],
    [
      'Fenced, but powered on again, rebooted, Ready and heartbeating: recover, release nothing',
      { fence: fence('Fenced'), node: { ...up, bootId: 'boot-2' } },
      { kind: 'recover' },
    ],
    [
      'Fenced, Ready and heartbeating but not rebooted: release (old processes may run)',
      { fence: fence('Fenced'), node: up },
      { kind: 'release', strategy: 'OutOfServiceTaint' },
    ],
    [
      'Releasing, pods left, but the node is back: recover, release no more',
      { fence: fence('Releasing'), podsOnNode: 2, node: { ...up, bootId: 'boot-2' } },
      { kind: 'recover' },
    ],
    [
      'Releasing, pods left, taint on: finish them',
      {
        fence: fence('Releasing'),
        podsOnNode: 2,
        node: {
          ...down,
          taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }],
        },
      },
      { kind: 'release', strategy: 'OutOfServiceTaint' },
    ],
    [
      'Releasing, taint removed by someone: taint again',
      { fence: fence('Releasing'), podsOnNode: 2 },
      { kind: 'release' },
    ],
    [
      'Releasing by deletion: delete again',
      { fence: fence('Releasing'), podsOnNode: 1, policy: policy({ releaseStrategy: 'ResourceDeletion' }) },
      { kind: 'release', strategy: 'ResourceDeletion' },
    ],
    [
      'Releasing, attachments left: wait',
      {
        fence: fence('Releasing'),
        attachmentsOnNode: 1,
        node: { ...down, taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] },
      },
      { kind: 'wait' },
    ],
    ['Releasing, nothing left: Released', { fence: fence('Releasing') }, { kind: 'phase', to: 'Released' }],
    ['Released, node still down', { fence: fence('Released') }, { kind: 'wait' }],
    [
      'Released, Ready but the Lease not renewed since the fence: not back',
      { fence: fence('Released'), node: node('True', 5, 61) },
      { kind: 'wait' },
    ],
    [
      'Released, Ready and heartbeating but not rebooted: old processes may run',
      { fence: fence('Released'), node: up },
      { kind: 'wait' },
    ],
    [
      'Released, rebooted, Ready and heartbeating: recover',
      { fence: fence('Released'), node: { ...up, bootId: 'boot-2' } },
      { kind: 'recover' },
    ],
    ['Failed stays for a person', { fence: fence('Failed') }, { kind: 'wait' }],
    [
      'Recovered, new incident: replace',
      { fence: fence('Recovered', { status: { recoveredAt: iso(ago(1000)) } }) },
      { kind: 'replace' },
    ],
    [
      'Recovered, same incident: wait',
      { fence: fence('Recovered', { status: { recoveredAt: iso(ago(300)) } }) },
      { kind: 'wait' },
    ],
  ];
  it.each(cases)('%s', (_name, w, want) => {
    expect(decide(world(w))).toMatchObject(want);
  });

  // the warning window: announced and cancellable until fenceAt, held while the policy is paused
  const inWindow = { status: { detectedAt: iso(ago(4)), fenceAt: iso(NOW + 6_000) } };
  const windowCases: [string, Partial<FenceWorld>, Record<string, unknown>][] = [
    [
      'Detected inside the window: waits until fenceAt',
      { fence: fence('Detected', inWindow), policy: policy({ warningWindow: '10s' }) },
      { kind: 'wait', reason: 'warning', recheckMs: 6_000 },
    ],
    [
      'Detected, window over: fence',
      {
        fence: fence('Detected', { status: { fenceAt: iso(ago(1)) } }),
        policy: policy({ warningWindow: '10s' }),
      },
      { kind: 'phase', to: 'Fencing' },
    ],
    [
      'window "0s": fence at once',
      {
        fence: fence('Detected', { status: { detectedAt: iso(NOW), fenceAt: iso(NOW) } }),
        policy: policy({ warningWindow: '0s' }),
      },
      { kind: 'phase', to: 'Fencing' },
    ],
    [
      'a fence written without fenceAt: detection plus the window',
      { fence: fence('Detected', { status: { detectedAt: iso(ago(3)) } }), policy: policy() },
      { kind: 'wait', reason: 'warning', recheckMs: 7_000 },
    ],
    [
      'cancel inside the window: Cancelled by the person',
      {
        fence: fence('Detected', {
          ...inWindow,
          spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: 'planned work' } },
        }),
      },
      {
        kind: 'phase',
        to: 'Cancelled',
        reason: 'CancelledByUser',
        message: 'cancelled by ana: planned work',
      },
    ],
    [
      'node back inside the window: Cancelled',
      { fence: fence('Detected', inWindow), node: up },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeRecovered' },
    ],
    [
      'paused policy: a detected fence waits, window over or not',
      {
        fence: fence('Detected', { status: { fenceAt: iso(ago(1)) } }),
        policy: policy({ paused: true }),
      },
      { kind: 'wait', reason: 'paused' },
    ],
    [
      'paused policy: still cancellable',
      {
        fence: fence('Detected', { spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: '' } } }),
        policy: policy({ paused: true }),
      },
      { kind: 'phase', to: 'Cancelled', reason: 'CancelledByUser' },
    ],
    ['paused policy: no new fence', { policy: policy({ paused: true }) }, { kind: 'wait', reason: 'paused' }],
    [
      'paused policy: a fence past its agent goes on (pause cannot undo a fence)',
      { fence: fence('Fencing'), policy: policy({ paused: true }) },
      { kind: 'run-agent', attempt: 1 },
    ],
    [
      'manual: awaits approval at once, window or not',
      { fence: fence('Detected', inWindow), policy: policy({ approval: 'Manual' }) },
      { kind: 'phase', to: 'AwaitingApproval' },
    ],
    [
      'manual, approved inside the window: the agent still waits for fenceAt',
      {
        fence: fence('AwaitingApproval', { ...inWindow, spec: { approvedBy: 'ana' } }),
        policy: policy({ approval: 'Manual' }),
      },
      { kind: 'wait', reason: 'warning' },
    ],
  ];
  it.each(windowCases)('%s', (_name, w, want) => {
    expect(decide(world(w))).toMatchObject(want);
  });

  // a person's "Fence now": adopted as Detected with no window, then run whatever the budget says
  const requested = {
    spec: { requestedBy: { by: 'ana', at: iso(NOW), reason: 'zone b is down' }, approvedBy: 'ana' },
  };
  const unstamped = { status: { detectedAt: undefined, nodeUid: undefined, nodeBootId: undefined } };
  const held = {
    allowed: false,
    message: '2 of 5 unhealthy, at most 1 allowed',
    selected: 3,
    unhealthy: 2,
    maxUnhealthy: 1,
  };
  const requestCases: [string, Partial<FenceWorld>, Record<string, unknown>][] = [
    [
      'requested, not yet adopted: adopt now, fenceAt now',
      { fence: fence('Detected', { ...requested, ...unstamped }), policy: policy({ warningWindow: '10s' }) },
      { kind: 'adopt', why: 'fence requested by ana: zone b is down', fenceAt: NOW },
    ],
    [
      'created, its first status never written: detected now, announced for the whole window',
      { fence: fence('Detected', unstamped), policy: policy({ warningWindow: '10s' }) },
      { kind: 'adopt', fenceAt: NOW + 10_000 },
    ],
    [
      'created with a cancel and no status (the console cancelled an announcement): Cancelled',
      {
        fence: fence('Detected', {
          ...unstamped,
          spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: '' } },
        }),
        policy: policy({ warningWindow: '10s' }),
      },
      { kind: 'phase', to: 'Cancelled', reason: 'CancelledByUser' },
    ],
    [
      'created, no status, and the node healthy again: Cancelled',
      { fence: fence('Detected', unstamped), node: up },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeRecovered' },
    ],
    [
      'requested while the budget holds automatic fences: adopt all the same',
      { fence: fence('Detected', { ...requested, ...unstamped }), budget: held },
      { kind: 'adopt' },
    ],
    [
      'requested for a node that is gone: Cancelled',
      { fence: fence('Detected', { ...requested, ...unstamped }), node: undefined },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeNotFound' },
    ],
    [
      'adopted, budget exceeded, Manual policy (approved by the requester): fence',
      {
        fence: fence('Detected', { ...requested, status: { detectedAt: iso(NOW), fenceAt: iso(NOW) } }),
        budget: held,
        policy: policy({ approval: 'Manual', warningWindow: '10s' }),
      },
      { kind: 'phase', to: 'Fencing' },
    ],
    [
      'requested, Fencing, budget exceeded: the agent runs (the request overrode the budget)',
      { fence: fence('Fencing', requested), budget: held },
      { kind: 'run-agent', attempt: 1 },
    ],
    [
      'approved (not requested), Fencing, budget exceeded: held before the agent',
      { fence: fence('Fencing', { spec: { approvedBy: 'ana' } }), budget: held },
      { kind: 'phase', to: 'Fencing', reason: 'BudgetExceeded' },
    ],
    [
      'an ended fence a person asked to fence again (requested after it ended): adopt',
      {
        fence: fence('Cancelled', {
          spec: { requestedBy: { by: 'ana', at: iso(ago(5)), reason: 'it is down' }, approvedBy: 'ana' },
          status: { conditions: [ended('CancelledByUser', 50)] },
        }),
      },
      { kind: 'adopt', why: 'fence requested by ana: it is down' },
    ],
    [
      'an ended fence whose request is older than its end: as any ended fence',
      {
        fence: fence('Cancelled', {
          spec: { requestedBy: { by: 'ana', at: iso(ago(90)), reason: '' } },
          status: { conditions: [ended('CancelledByUser', 50)] },
        }),
      },
      { kind: 'wait', reason: 'cancelled' },
    ],
    [
      'adopted, then cancelled before the agent: Cancelled',
      {
        fence: fence('Detected', {
          spec: { ...requested.spec, cancelRequested: { by: 'bo', at: iso(NOW), reason: 'it is back' } },
          status: { detectedAt: iso(NOW), fenceAt: iso(NOW) },
        }),
      },
      { kind: 'phase', to: 'Cancelled', reason: 'CancelledByUser' },
    ],
    [
      'adopted, node Ready again before the agent: Cancelled',
      {
        fence: fence('Detected', { ...requested, status: { detectedAt: iso(NOW), fenceAt: iso(NOW) } }),
        node: up,
      },
      { kind: 'phase', to: 'Cancelled', reason: 'NodeRecovered' },
    ],
  ];
  it.each(requestCases)('%s', (_name, w, want) => {
    expect(decide(world(w))).toMatchObject(want);
  });

  it('a fence cancelled by a person is not replaced while the node stays down', () => {
    const f = fence('Cancelled', { status: { conditions: [ended('CancelledByUser', 50)] } });
    expect(decide(world({ fence: f }))).toMatchObject({ kind: 'wait', reason: 'cancelled' });
    // the node came back after the cancel and failed again: a new incident, judged afresh
    const again = node('Unknown', 20, 20);
    expect(decide(world({ fence: f, node: again }))).toMatchObject({
      kind: 'wait',
      reason: 'not-long-enough',
    });
    expect(decide(world({ fence: f, node: again, now: NOW + 400_000 }))).toMatchObject({ kind: 'replace' });
  });

  it('a new incident cancelled before its fence was detected: renewed, then Cancelled and held', () => {
    // the last incident's fence ended 50 s ago; the node failed again 20 s ago
    const again = node('Unknown', 20, 20);
    const cancel = (secondsAgo: number) => ({
      cancelRequested: { by: 'bo', at: iso(ago(secondsAgo)), reason: 'planned work' },
    });
    for (const [phaseOf, reason] of [
      ['Recovered', 'NodeRecovered'],
      ['Cancelled', 'CancelledByUser'],
      ['Failed', 'FenceAgentFailed'],
    ] as const) {
      const f = (c: object) => fence(phaseOf, { spec: c, status: { conditions: [ended(reason, 50)] } });
      // cancelled during this incident: still announced (not long enough) or already due
      for (const now of [NOW, NOW + 400_000])
        expect(decide(world({ fence: f(cancel(5)), node: again, now })), `${phaseOf}`).toEqual({
          kind: 'renew',
          why: 'cancelled by bo before its fence started',
        });
      // a cancel from before this incident began (the last one's) is not about this one
      expect(decide(world({ fence: f(cancel(30)), node: again, now: NOW + 400_000 }))).toMatchObject({
        kind: 'replace',
      });
    }
    // renewed: Detected with the cancel on its spec, no attempt: Cancelled by bo
    const renewed = fence('Detected', {
      spec: cancel(5),
      status: { detectedAt: iso(NOW), fenceAt: iso(NOW), conditions: [] },
    });
    expect(decide(world({ fence: renewed, node: again }))).toMatchObject({
      kind: 'phase',
      to: 'Cancelled',
      reason: 'CancelledByUser',
    });
    // and once Cancelled (after the request), it holds the node for the rest of this incident
    const held = fence('Cancelled', {
      spec: cancel(5),
      status: { conditions: [ended('CancelledByUser', 1)] },
    });
    expect(decide(world({ fence: held, node: again, now: NOW + 400_000 }))).toMatchObject({
      kind: 'wait',
      reason: 'cancelled',
    });
  });

  it('a failed fence holds the node for its incident only', () => {
    const f = fence('Failed', { status: { conditions: [ended('FenceAgentFailed', 50)] } });
    expect(decide(world({ fence: f }))).toMatchObject({ kind: 'wait', reason: 'failed' });
    const again = node('Unknown', 20, 20);
    expect(decide(world({ fence: f, node: again, now: NOW + 400_000 }))).toMatchObject({ kind: 'replace' });
  });

  describe('a policy whose agent is refused (lib/fenceAgents/policy.ts)', () => {
    const refused = 'spec.agent.sharedParameters["--sudo-path"]: "--sudo-path" is refused';
    const held = {
      kind: 'phase',
      to: 'Fencing',
      reason: 'AgentRefused',
      message: `the agent of FencePolicy p is refused, so no agent runs until the policy is fixed: ${refused}`,
    };
    const cases: [string, FenceWorld['fence'], Record<string, unknown>][] = [
      ['never runs the agent', fence('Fencing'), held],
      ['never retries it', fence('Fencing', { attempts: [attempt(1, 'Failed')] }), held],
      ['never runs its status query', fence('Fencing', { attempts: [attempt(1, 'Succeeded')] }), held],
      // an attempt that was running is marked Interrupted (no agent), and then held before verifying
      [
        'marks a running attempt Interrupted',
        fence('Fencing', { attempts: [attempt(1, 'Running')] }),
        { kind: 'interrupted' },
      ],
      [
        'a confirmed fence needs no agent: released as usual',
        fence('Fencing', {
          attempts: [
            attempt(1, 'Succeeded', {
              verification: { at: iso(NOW), state: 'off', confirmed: true, detail: '' },
            }),
          ],
        }),
        { kind: 'phase', to: 'Fenced' },
      ],
    ];
    it.each(cases)('%s', (_, f, want) => {
      expect(decide(world({ fence: f, agentRefused: refused }))).toMatchObject(want);
    });

    it('still creates the fence and lets it be cancelled; the agent runs once the policy is fixed', () => {
      expect(decide(world({ agentRefused: refused }))).toMatchObject({ kind: 'create' });
      const cancel = fence('Fencing', { spec: { cancelRequested: { by: 'ana', at: iso(NOW), reason: '' } } });
      expect(decide(world({ fence: cancel, agentRefused: refused }))).toMatchObject({ to: 'Cancelled' });
      expect(decide(world({ fence: fence('Fencing') }))).toEqual({ kind: 'run-agent', attempt: 1 });
    });
  });
});

describe('judgeBudget', () => {
  // the last column: how many more nodes may fail before every fence is held (budgetMargin)
  const cases: [string, Record<string, unknown>, number, number, boolean, number][] = [
    ['default 51% healthy: 1 of 5 down', {}, 5, 1, true, 1],
    ['default 51% healthy: 3 of 5 down', {}, 5, 3, false, -1],
    ['minHealthy 2 of 3, one down', { minHealthy: 2 }, 3, 1, true, 0],
    ['minHealthy 2 of 3, two down', { minHealthy: 2 }, 3, 2, false, -1],
    ['maxUnhealthy 40% of 5 rounds down to 2', { maxUnhealthy: '40%' }, 5, 2, true, 0],
    ['maxUnhealthy 40% of 5, three down', { maxUnhealthy: '40%' }, 5, 3, false, -1],
    ['maxUnhealthy 30% of 3 rounds down to 0', { maxUnhealthy: '30%' }, 3, 1, false, -1],
    ['maxUnhealthy 4 of 12, none down', { maxUnhealthy: 4 }, 12, 0, true, 4],
  ];
  it.each(cases)('%s', (_n, extra, selected, unhealthy, allowed, margin) => {
    const v = judgeBudget(policy(extra), selected, unhealthy);
    expect(v.allowed).toBe(allowed);
    expect(v.message).toMatch(/nodes/);
    expect({ selected: v.selected, unhealthy: v.unhealthy }).toEqual({ selected, unhealthy });
    expect(budgetMargin(v)).toBe(margin);
    // the margin and the verdict never disagree
    expect(budgetMargin(v) >= 0).toBe(allowed);
  });
});

describe('healthyForBudget', () => {
  // Lease duration 40 s: a kubelet renews every 10 s, so 20 s without a renewal is a missed one
  const cases: [string, NodeFacts, boolean][] = [
    ['Ready, renewed 1 s ago', up, true],
    ['Ready, renewed 20 s ago (on the edge)', node('True', 100, 20), true],
    [
      'Ready, not renewed for 21 s: heartbeats missed before the Ready condition says so',
      node('True', 100, 21),
      false,
    ],
    ['Ready, no Lease at all: judged on its conditions', node('True', 100, null), true],
    ['Unknown, renewed just now (the Ready condition lags the other way)', node('Unknown', 1, 1), false],
    ['Unknown for long', down, false],
  ];
  it.each(cases)('%s', (_n, n, healthy) => {
    expect(healthyForBudget(policy(), n, NOW)).toBe(healthy);
  });
});

describe('fencePolicySpec', () => {
  it('fills the defaults', () => {
    const p = policy();
    expect(p.unhealthyConditions).toEqual([
      { type: 'Ready', status: 'Unknown', duration: '300s' },
      { type: 'Ready', status: 'False', duration: '300s' },
    ]);
    expect(p).toMatchObject({ approval: 'Automatic', releaseStrategy: 'OutOfServiceTaint', timeout: '60s' });
  });
  it('refuses both budgets and names the field', () => {
    const r = fencePolicySpec.safeParse({ agent: { type: 'power' }, minHealthy: 1, maxUnhealthy: 1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['maxUnhealthy']);
  });
  it('refuses a non-ClusterLabs agent name', () => {
    const r = fencePolicySpec.safeParse({ agent: { type: 'exec', agent: 'rm -rf' } });
    expect(r.error?.issues[0].path).toEqual(['agent', 'agent']);
  });
  it('refuses a duration longer than Go parses, naming the field: a Date could not hold the fence time', () => {
    // found by lib/fencing/fuzz.test.ts: warningWindow "9999999999999h" passed, and decide()
    // threw "Invalid time value" for every Detected fence of the policy
    const r = fencePolicySpec.safeParse({ agent: { type: 'power' }, warningWindow: '9999999999999h' });
    expect(r.error?.issues[0].path).toEqual(['warningWindow']);
    expect(fencePolicySpec.safeParse({ agent: { type: 'power' }, timeout: '2562047h' }).success).toBe(true);
  });
});
