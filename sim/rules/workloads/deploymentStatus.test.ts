import { describe, expect, it } from 'vitest';
import { deadlineIn, deploymentStatus, type StatusInput } from './deploymentStatus.js';

const now = new Date('2024-01-01T00:10:00Z');
const set = (replicas: number, ready = replicas, available = ready, specReplicas = replicas) => ({
  replicas,
  ready,
  available,
  specReplicas,
});
const input = (over: Partial<StatusInput>): StatusInput => ({
  desired: 3,
  generation: 2,
  unavailable: 0,
  all: [],
  previous: undefined,
  progressDeadlineSeconds: 600,
  paused: false,
  now,
  ...over,
});
const cond = (s: ReturnType<typeof deploymentStatus>, type: string) =>
  s.conditions?.find((c) => c.type === type);

describe('deploymentStatus', () => {
  it('sums the sets and reports unavailable against the spec total', () => {
    const s = deploymentStatus(
      input({
        newSet: { name: 'web-new', counts: set(2, 1, 1), created: false },
        all: [set(2, 1, 1), set(2, 2, 2, 1)],
      }),
    );
    expect(s).toMatchObject({
      observedGeneration: 2,
      replicas: 4,
      updatedReplicas: 2,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 0,
    });
  });

  it.each([
    [
      'complete',
      { newSet: { name: 'w', counts: set(3), created: false }, all: [set(3)] },
      'True',
      'NewReplicaSetAvailable',
      'ReplicaSet "w" has successfully progressed.',
    ],
    [
      'new set created',
      { newSet: { name: 'w', counts: set(0), created: true }, all: [set(0), set(3)] },
      'True',
      'NewReplicaSetCreated',
      'Created new replica set "w"',
    ],
    [
      'progressing',
      {
        newSet: { name: 'w', counts: set(1), created: false },
        all: [set(1), set(3)],
        previous: { updatedReplicas: 0, replicas: 3, conditions: [] },
      },
      'True',
      'ReplicaSetUpdated',
      'ReplicaSet "w" is progressing.',
    ],
    [
      'timed out',
      {
        newSet: { name: 'w', counts: set(1, 0), created: false },
        all: [set(1, 0), set(3)],
        previous: {
          updatedReplicas: 1,
          replicas: 4,
          readyReplicas: 3,
          availableReplicas: 3,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'ReplicaSetUpdated',
              lastUpdateTime: '2024-01-01T00:00:00Z' as any,
            },
          ],
        },
        progressDeadlineSeconds: 60,
      },
      'False',
      'ProgressDeadlineExceeded',
      'ReplicaSet "w" has timed out progressing.',
    ],
    ['paused', { paused: true, all: [set(3)] }, 'Unknown', 'DeploymentPaused', 'Deployment is paused'],
  ] as const)('Progressing when %s', (_n, over, status, reason, message) => {
    const c = cond(deploymentStatus(input(over as unknown as Partial<StatusInput>)), 'Progressing');
    expect(c).toMatchObject({ status, reason, message });
  });

  it.each([
    [3, 0, 'True', 'MinimumReplicasAvailable'],
    [2, 1, 'True', 'MinimumReplicasAvailable'],
    [1, 1, 'False', 'MinimumReplicasUnavailable'],
  ])('Available with %d available and maxUnavailable %d', (available, unavailable, status, reason) => {
    const s = deploymentStatus(input({ unavailable, all: [set(3, available, available)] }));
    expect(cond(s, 'Available')).toMatchObject({ status, reason });
  });

  it('keeps lastTransitionTime when the condition does not change', () => {
    const previous = deploymentStatus(input({ all: [set(3)], now: new Date('2024-01-01T00:00:00Z') }));
    const s = deploymentStatus(input({ all: [set(3)], previous }));
    expect(cond(s, 'Available')?.lastTransitionTime).toBe('2024-01-01T00:00:00Z');
  });

  it('deadlineIn schedules a recheck only while progressing', () => {
    const s = {
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: now }],
    };
    expect(deadlineIn(s, 60, now.getTime())).toBe(61_000);
    expect(
      deadlineIn({ conditions: [{ ...s.conditions[0], reason: 'NewReplicaSetAvailable' }] }, 60, 0),
    ).toBeUndefined();
  });
});
