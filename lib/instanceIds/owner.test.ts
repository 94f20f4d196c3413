import { describe, expect, it } from 'vitest';
import { instanceCount, isLivePod, type OwnerStep, podOwner, replicaSetOwner } from './owner.js';

const ref = (apiVersion: string, kind: string, name: string, controller = true) => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller,
});

describe('the object that carries a pod map', () => {
  const cases: [string, Parameters<typeof podOwner>[1], OwnerStep][] = [
    [
      'a StatefulSet pod: the StatefulSet',
      [ref('apps/v1', 'StatefulSet', 'db')],
      { kind: 'owner', owner: { kind: 'StatefulSet', name: 'db', uid: 'uid-db' } },
    ],
    [
      'a Job pod: the Job',
      [ref('batch/v1', 'Job', 'crunch')],
      { kind: 'owner', owner: { kind: 'Job', name: 'crunch', uid: 'uid-crunch' } },
    ],
    [
      'a Deployment pod: its ReplicaSet first, to find the Deployment',
      [ref('apps/v1', 'ReplicaSet', 'web-5d9d')],
      { kind: 'replicaSet', name: 'web-5d9d', uid: 'uid-web-5d9d' },
    ],
    [
      'the controller among several owners',
      [ref('v1', 'ConfigMap', 'cfg', false), ref('apps/v1', 'StatefulSet', 'db')],
      { kind: 'owner', owner: { kind: 'StatefulSet', name: 'db', uid: 'uid-db' } },
    ],
    [
      'a bare pod: refused',
      undefined,
      {
        kind: 'none',
        message:
          'pod p has no controller: instance IDs are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job',
      },
    ],
    [
      'an owner that is not the controller: refused',
      [ref('apps/v1', 'StatefulSet', 'db', false)],
      {
        kind: 'none',
        message:
          'pod p has no controller: instance IDs are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job',
      },
    ],
    [
      'another controller (a DaemonSet): refused with its name',
      [ref('apps/v1', 'DaemonSet', 'agent')],
      {
        kind: 'none',
        message:
          'pod p is controlled by DaemonSet agent (apps/v1): instance IDs are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job',
      },
    ],
    [
      'a kind of the same name in another group is not ours',
      [ref('example.com/v1', 'StatefulSet', 'db')],
      {
        kind: 'none',
        message:
          'pod p is controlled by StatefulSet db (example.com/v1): instance IDs are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job',
      },
    ],
  ];
  it.each(cases)('%s', (_what, refs, step) => expect(podOwner('p', refs)).toEqual(step));

  it.each([
    [
      'a ReplicaSet of a Deployment: the Deployment (its IDs survive a rollout)',
      [ref('apps/v1', 'Deployment', 'web')],
      { kind: 'owner', owner: { kind: 'Deployment', name: 'web', uid: 'uid-web' } },
    ],
    [
      'a bare ReplicaSet: refused',
      [],
      {
        kind: 'none',
        message:
          "ReplicaSet rs has no Deployment: a bare ReplicaSet's IDs would not survive it, so they are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job only",
      },
    ],
    [
      'a ReplicaSet of something else: refused',
      [ref('argoproj.io/v1alpha1', 'Rollout', 'web')],
      {
        kind: 'none',
        message:
          'ReplicaSet rs is controlled by Rollout web, not a Deployment: instance IDs are kept on a Deployment (through its ReplicaSet), a StatefulSet or a Job',
      },
    ],
  ] as const)('%s', (_what, refs, step) => expect(replicaSetOwner('rs', refs)).toEqual(step));
});

describe('the instance count and live pods', () => {
  it.each([
    ['Deployment', { replicas: 3 }, 3],
    ['StatefulSet', { replicas: 0 }, 0],
    ['Deployment', {}, 1],
    ['Deployment', undefined, 1],
    ['Job', { parallelism: 4, replicas: 9 }, 4],
    ['Job', {}, 1],
  ] as const)('%s %j has %i instances', (kind, spec, n) => expect(instanceCount(kind, spec)).toBe(n));

  it.each([
    [{ status: { phase: 'Running' } }, true],
    [{ status: { phase: 'Pending' } }, true],
    [{}, true],
    [{ metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Running' } }, false],
    [{ status: { phase: 'Succeeded' } }, false],
    [{ status: { phase: 'Failed' } }, false],
  ])('%j can hold an id: %s', (pod, yes) => expect(isLivePod(pod)).toBe(yes));
});
