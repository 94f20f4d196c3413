import { describe, expect, it } from 'vitest';
import {
  ordinalOf,
  planStatefulSet,
  type ReplicaView,
  type SetPlanInput,
  statefulSetCounts,
} from './statefulSet.js';

const pod = (ordinal: number, over: Partial<ReplicaView> = {}): ReplicaView => ({
  ordinal,
  name: `web-${ordinal}`,
  revision: 'web-new',
  terminating: false,
  finished: false,
  ready: true,
  available: true,
  ...over,
});

const input = (over: Partial<SetPlanInput>): SetPlanInput => ({
  replicas: 3,
  parallel: false,
  onDelete: false,
  partition: 0,
  currentRevision: 'web-new',
  updateRevision: 'web-new',
  pods: [],
  ...over,
});

describe('ordinalOf', () => {
  it.each([
    ['web', 'web-0', 0],
    ['web', 'web-12', 12],
    ['my-db', 'my-db-3', 3],
    ['web', 'web-01', undefined],
    ['web', 'webx-1', undefined],
    ['web', 'web-abc', undefined],
    ['web', 'other-1', undefined],
  ])('%s / %s -> %s', (set, name, want) => {
    expect(ordinalOf(set, name)).toBe(want);
  });
});

describe('planStatefulSet', () => {
  const cases: [string, Partial<SetPlanInput>, unknown[], string | undefined][] = [
    ['OrderedReady creates ordinal 0 first', {}, [{ kind: 'create', ordinal: 0 }], 'creating 0'],
    [
      'OrderedReady waits for a not-ready predecessor',
      { pods: [pod(0, { ready: false, available: false })] },
      [],
      'web-0 is not ready',
    ],
    [
      'OrderedReady waits for minReadySeconds',
      { pods: [pod(0, { available: false })] },
      [],
      'web-0 is not available',
    ],
    [
      'OrderedReady creates the next once 0 is ready',
      { pods: [pod(0)] },
      [{ kind: 'create', ordinal: 1 }],
      'creating 1',
    ],
    [
      'a terminating pod blocks its identity (no create)',
      { pods: [pod(0, { terminating: true }), pod(1), pod(2)] },
      [],
      'web-0 is terminating',
    ],
    [
      'Parallel creates every missing ordinal at once',
      { parallel: true },
      [
        { kind: 'create', ordinal: 0 },
        { kind: 'create', ordinal: 1 },
        { kind: 'create', ordinal: 2 },
      ],
      'replicas not settled',
    ],
    [
      'Parallel skips a terminating identity but creates the others',
      { parallel: true, pods: [pod(1, { terminating: true })] },
      [
        { kind: 'create', ordinal: 0 },
        { kind: 'create', ordinal: 2 },
      ],
      'replicas not settled',
    ],
    [
      'a finished pod is deleted before it is recreated',
      { pods: [pod(0, { finished: true })] },
      [{ kind: 'delete', ordinal: 0, reason: 'finished' }],
      'web-0 finished',
    ],
    [
      'OrderedReady scales down from the highest ordinal, one at a time',
      { replicas: 1, pods: [pod(0), pod(1), pod(2)] },
      [{ kind: 'delete', ordinal: 2, reason: 'condemned' }],
      'scaling down web-2',
    ],
    [
      'OrderedReady scale-down waits until the condemned pod is gone',
      { replicas: 1, pods: [pod(0), pod(1), pod(2, { terminating: true })] },
      [],
      'web-2 is terminating',
    ],
    [
      'OrderedReady does not scale down while a replica is unhealthy',
      { replicas: 1, pods: [pod(0, { ready: false }), pod(1)] },
      [],
      'web-0 is not ready',
    ],
    [
      'Parallel condemns all surplus pods at once',
      { replicas: 1, parallel: true, pods: [pod(0), pod(1), pod(2)] },
      [
        { kind: 'delete', ordinal: 2 },
        { kind: 'delete', ordinal: 1 },
      ],
      'replicas not settled',
    ],
    [
      'rolling update deletes the highest outdated pod first',
      { updateRevision: 'web-v2', pods: [pod(0), pod(1), pod(2)] },
      [{ kind: 'delete', ordinal: 2, reason: 'update' }],
      'updating web-2',
    ],
    [
      'rolling update waits for the replacement to be healthy',
      {
        updateRevision: 'web-v2',
        parallel: true,
        pods: [pod(0), pod(1), pod(2, { revision: 'web-v2', ready: false, available: false })],
      },
      [],
      'web-2 is not healthy',
    ],
    [
      'rolling update continues below once the replacement is ready',
      { updateRevision: 'web-v2', pods: [pod(0), pod(1), pod(2, { revision: 'web-v2' })] },
      [{ kind: 'delete', ordinal: 1, reason: 'update' }],
      'updating web-1',
    ],
    [
      'rolling update leaves ordinals below the partition',
      { updateRevision: 'web-v2', partition: 2, pods: [pod(0), pod(1), pod(2, { revision: 'web-v2' })] },
      [],
      undefined,
    ],
    [
      'OnDelete never deletes for an update',
      { updateRevision: 'web-v2', onDelete: true, pods: [pod(0), pod(1), pod(2)] },
      [],
      undefined,
    ],
    [
      'a pod below the partition is recreated at the current revision',
      { currentRevision: 'web-v1', updateRevision: 'web-v2', partition: 2, pods: [] },
      [{ kind: 'create', ordinal: 0, revision: 'web-v1' }],
      'creating 0',
    ],
  ];
  it.each(cases)('%s', (_name, over, steps, blockedBy) => {
    const plan = planStatefulSet(input(over));
    expect(plan.steps).toEqual(steps.map((s) => expect.objectContaining(s as object)));
    expect(plan.blockedBy).toBe(blockedBy);
  });

  it('never creates an ordinal whose pod object still exists, whatever its state', () => {
    const states: Partial<ReplicaView>[] = [
      { terminating: true },
      { terminating: true, ready: false },
      { terminating: true, finished: true },
      { ready: false },
      { finished: true },
    ];
    for (const parallel of [false, true])
      for (const s of states) {
        const plan = planStatefulSet(input({ parallel, replicas: 1, pods: [pod(0, s)] }));
        expect(plan.steps.filter((x) => x.kind === 'create')).toEqual([]);
      }
  });
});

describe('statefulSetCounts', () => {
  it('counts created, ready, available and revisions; terminating pods keep no revision', () => {
    const c = statefulSetCounts(
      [
        pod(0, { revision: 'v1' }),
        pod(1, { revision: 'v2', available: false }),
        pod(2, { revision: 'v1', terminating: true, ready: false }),
      ],
      'v1',
      'v2',
      false,
    );
    expect(c).toEqual({
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 1,
      currentReplicas: 1,
      updatedReplicas: 1,
      currentRevision: 'v1',
      updateRevision: 'v2',
    });
  });

  it('rolls the current revision over once every pod is updated and ready', () => {
    const c = statefulSetCounts([pod(0, { revision: 'v2' }), pod(1, { revision: 'v2' })], 'v1', 'v2', false);
    expect(c.currentRevision).toBe('v2');
    expect(c.currentReplicas).toBe(2);
  });
});
