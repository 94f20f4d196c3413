import { describe, expect, it } from 'vitest';
import type { NodeFacts } from './health.js';
import type { FenceWorld } from './machine.js';
import { phaseLabel, PHASE_TONE, releasedText, warningOf, warningText } from './view.js';
import { upcomingOf } from './warning.js';
import { fencePolicySpec, type NodeFence, type Phase } from './types.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const ago = (s: number) => NOW - s * 1000;

const policy = (extra: Record<string, unknown> = {}) =>
  fencePolicySpec.parse({
    agent: { type: 'power' },
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '10s' }],
    ...extra,
  });

const node = (status: string, since: number, renewedAgo: number): NodeFacts => ({
  name: 'n1',
  uid: 'uid-1',
  labels: {},
  conditions: [{ type: 'Ready', status, lastTransitionTime: ago(since) }],
  taints: [],
  lease: { renewTime: ago(renewedAgo), durationSeconds: 40 },
});

const finished = (phase: Phase, reason: string): NodeFence => ({
  metadata: { name: 'n1' },
  spec: { nodeName: 'n1', policy: 'p' },
  status: {
    phase,
    conditions: [
      {
        type: 'Processing',
        status: 'False',
        reason,
        message: '',
        lastTransitionTime: new Date(ago(900)).toISOString(),
      },
    ],
    attempts: [],
    steps: [],
    recoveredAt: phase === 'Recovered' ? new Date(ago(900)).toISOString() : undefined,
    message: '',
  },
});

const world = (w: Partial<FenceWorld>): FenceWorld => ({
  now: NOW,
  policy: policy(),
  node: node('Unknown', 4, 50),
  budget: { allowed: true, message: '', selected: 3, unhealthy: 1, maxUnhealthy: 1 },
  podsOnNode: 0,
  attachmentsOnNode: 0,
  inFlight: false,
  ...w,
});

describe('upcomingOf', () => {
  const cases: [string, Partial<FenceWorld>, { fenceAt: number; paused: boolean } | undefined][] = [
    // unhealthy 4 s of 10 s: detected in 6 s, fenced 10 s later
    ['unhealthy, not long enough: due + window', {}, { fenceAt: NOW + 6_000 + 10_000, paused: false }],
    [
      'the Lease decides when it is later: renewed 35 s ago, stale in 5 s (+1 ms)',
      { node: node('Unknown', 20, 35) },
      { fenceAt: NOW + 5_001 + 10_000, paused: false },
    ],
    [
      'long enough (about to be detected): now + window',
      { node: node('Unknown', 30, 50) },
      { fenceAt: NOW + 10_000, paused: false },
    ],
    ['window 0s', { policy: policy({ warningWindow: '0s' }) }, { fenceAt: NOW + 6_000, paused: false }],
    [
      'paused policy: shown paused',
      { policy: policy({ paused: true }), node: node('Unknown', 30, 50) },
      { fenceAt: NOW + 10_000, paused: true },
    ],
    ['healthy node: nothing', { node: node('True', 100, 1) }, undefined],
    ['manual policy: nothing automatic', { policy: policy({ approval: 'Manual' }) }, undefined],
    [
      'budget holds it: no time to announce',
      {
        node: node('Unknown', 30, 50),
        budget: { allowed: false, message: 'x', selected: 3, unhealthy: 2, maxUnhealthy: 1 },
      },
      undefined,
    ],
    [
      'a fence in progress: the fence shows its own fenceAt',
      { fence: { ...finished('Detected', 'RemediationStarted') } },
      undefined,
    ],
    [
      'a recovered fence of an earlier incident: the next one is upcoming',
      { fence: finished('Recovered', 'NodeRecovered') },
      { fenceAt: NOW + 16_000, paused: false },
    ],
    [
      'cancelled by a person, the node down since before: not fenced again',
      { fence: finished('Cancelled', 'CancelledByUser'), node: node('Unknown', 1000, 1000) },
      undefined,
    ],
    [
      'cancelled by a person, then back and down again: a new incident, announced',
      { fence: finished('Cancelled', 'CancelledByUser'), node: node('Unknown', 30, 50) },
      // as if there were no NodeFence at all
      upcomingOf(world({ node: node('Unknown', 30, 50) })),
    ],
  ];
  it.each(cases)('%s', (_n, w, want) => {
    expect(upcomingOf(world(w))).toEqual(want);
  });
});

describe('warningOf', () => {
  const cases: [string, Parameters<typeof warningOf>[0], string | undefined][] = [
    [
      'counts down in whole seconds, rounded up',
      { fenceAt: NOW + 9_200, paused: false, policy: 'p' },
      'fenced automatically in 10 s unless cancelled',
    ],
    [
      'one second left',
      { fenceAt: NOW + 1, paused: false, policy: 'p' },
      'fenced automatically in 1 s unless cancelled',
    ],
    ['due', { fenceAt: NOW, paused: false, policy: 'p' }, 'fencing now unless cancelled'],
    ['paused', { fenceAt: NOW + 5_000, paused: true, policy: 'demo' }, 'fence paused by policy demo'],
    [
      'past Detected: no warning',
      { fenceAt: NOW + 5_000, paused: false, policy: 'p', phase: 'Fencing' },
      undefined,
    ],
  ];
  it.each(cases)('%s', (_n, w, want) => {
    const got = warningOf(w, NOW);
    expect(got && warningText(got)).toBe(want);
  });
});

describe('Released reads as work to do', () => {
  it('is warn, not ok, and says what a person must do', () => {
    expect(PHASE_TONE.Released).toBe('warn');
    expect(phaseLabel('Released')).toMatch(/needs repair/);
    expect(releasedText('a2-1', 'exec')).toBe(
      'Released — node a2-1 is powered off and out of service: power on or repair it, then remove the out-of-service taint',
    );
    expect(releasedText('a2-1', 'storage')).toMatch(/cut from its storage/);
  });
});
