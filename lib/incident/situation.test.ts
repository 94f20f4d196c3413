import { describe, expect, it } from 'vitest';
import { fence, input, NOW, node, noFencing, pod } from './fixtures.test-helpers';
import { isCalm, situationOf } from './situation';
import type { IncidentInput, SituationKey } from './types';

describe('situationOf', () => {
  const cases: [string, Partial<IncidentInput>, Partial<Record<SituationKey, number>>][] = [
    ['a healthy cluster', { nodes: [node('a')], pods: [pod('p', 'a')] }, {}],
    [
      'an Unknown node and its pods (finished ones do not count)',
      {
        nodes: [node('a', 'Unknown'), node('b')],
        pods: [pod('p', 'a'), pod('q', 'a', { phase: 'Succeeded' }), pod('r', 'b')],
      },
      { nodesNotReady: 1, podsOnFailedNodes: 1 },
    ],
    [
      'a Ready node whose heartbeats are late is suspect, not "not Ready"',
      { nodes: [node('a', 'Ready', { lastHeartbeat: NOW - 40_000 })], pods: [pod('p', 'a')] },
      { nodesSuspect: 1, podsOnFailedNodes: 1 },
    ],
    [
      'workloads below desired',
      {
        workloads: [
          { kind: 'StatefulSet', namespace: 's', name: 'db', uid: 'u', replicas: 3, readyReplicas: 2 },
          { kind: 'Deployment', namespace: 's', name: 'web', uid: 'v', replicas: 2, readyReplicas: 2 },
        ],
      },
      { workloadsBelowDesired: 1 },
    ],
    [
      'protectors at or below their floor (the pessimistic count)',
      {
        protectors: [
          { key: 's/a', minAvailable: 2, aggregated: 3, estimated: 2, dangling: false },
          { key: 's/b', minAvailable: 1, aggregated: 3, estimated: 3, dangling: false },
        ],
      },
      { protectorsAtFloor: 1 },
    ],
    [
      'fences by phase, announced ones and budget holds',
      {
        fencing: {
          ...noFencing,
          enabled: true,
          fences: [
            fence('a', 'Detected'),
            fence('b', 'AwaitingApproval'),
            fence('c', 'Fencing'),
            fence('d', 'Released'),
            fence('e', 'Fenced'),
          ],
          held: [
            { node: 'f', reason: 'budget', why: 'x' },
            { node: 'b', reason: 'approval', why: 'y' },
          ],
          upcoming: [{ node: 'g', policy: 'p', fenceAt: NOW + 5_000, paused: false }],
        },
      },
      { fencesPending: 2, fencesAwaitingApproval: 1, fencesInProgress: 2, fencesHeldByBudget: 1 },
    ],
    [
      "a fence announced for a node whose NodeFence is an earlier incident's (ended): pending",
      {
        fencing: {
          ...noFencing,
          enabled: true,
          fences: [fence('a', 'Cancelled'), fence('b', 'Recovered'), fence('c', 'Failed')],
          upcoming: ['a', 'b', 'c'].map((node) => ({
            node,
            policy: 'p',
            fenceAt: NOW + 5_000,
            paused: false,
          })),
        },
      },
      { fencesPending: 3, fencesInProgress: 0 },
    ],
    [
      'volumes stuck and at split-brain risk',
      {
        volumes: [
          { pv: 'v1', risk: 'stuck', exclusive: true, attachments: [] },
          { pv: 'v2', risk: 'split-brain-risk', exclusive: true, attachments: [] },
          { pv: 'v3', risk: 'ok', exclusive: true, attachments: [] },
        ],
      },
      { volumesStuck: 1, volumesSplitBrainRisk: 1 },
    ],
  ];
  it.each(cases)('%s', (_, more, expected) => {
    const s = situationOf(input(more));
    for (const [k, v] of Object.entries(s)) expect([k, v]).toEqual([k, expected[k as SituationKey] ?? 0]);
    expect(isCalm(s)).toBe(Object.keys(expected).length === 0);
  });
});
