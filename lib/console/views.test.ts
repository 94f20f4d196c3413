import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  attachmentView,
  eventView,
  latest,
  nodeView,
  podDetail,
  podState,
  podView,
  pvcView,
  withLease,
  workloadView,
} from './views.js';

const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-01T10:00:30Z';
const ms = (t: string) => Date.parse(t);

const node = (ready: string | undefined, extra: Partial<k8s.V1Node> = {}): k8s.V1Node => ({
  metadata: {
    name: 'a1-1',
    resourceVersion: '42',
    labels: { 'topology.kubernetes.io/zone': 'zone-a', 'palisade.dev/rack': 'a1' },
    managedFields: [{ manager: 'kubelet', operation: 'Update' }],
  },
  spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: new Date(T0) }] },
  status: {
    capacity: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
    conditions: ready
      ? [
          {
            type: 'Ready',
            status: ready,
            reason: 'KubeletReady',
            lastHeartbeatTime: new Date(T0),
            lastTransitionTime: T0 as any,
          },
        ]
      : [],
    images: [{ names: ['nginx:1.25'], sizeBytes: 1 }],
  },
  ...extra,
});

describe('nodeView', () => {
  it.each([
    ['True', 'Ready'],
    ['False', 'NotReady'],
    ['Unknown', 'Unknown'],
    [undefined, 'Unknown'],
  ] as const)('Ready=%s -> %s', (status, want) => {
    expect(nodeView(node(status)).ready).toBe(want);
  });

  it('keeps what the map shows and drops the rest', () => {
    const v = nodeView(node('True'));
    expect(v).toEqual({
      name: 'a1-1',
      zone: 'zone-a',
      rack: 'a1',
      ready: 'Ready',
      readySince: ms(T0),
      lastHeartbeat: ms(T0),
      unschedulable: false,
      taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }],
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: ms(T0) }],
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      resourceVersion: '42',
    });
    expect(JSON.stringify(v)).not.toMatch(/managedFields|images|ephemeral/);
  });

  it.each([
    [undefined, ms(T0)],
    [ms(T1), ms(T1)],
    [ms(T0) - 5000, ms(T0)],
  ])('lease renewal %s -> heartbeat %s', (lease, want) => {
    expect(nodeView(node('True'), lease).lastHeartbeat).toBe(want);
  });

  it('withLease returns the same object when nothing changes', () => {
    const v = nodeView(node('True'));
    expect(withLease(v, ms(T0), ms(T0) - 1)).toBe(v);
    expect(withLease(v, ms(T0), ms(T1)).lastHeartbeat).toBe(ms(T1));
  });

  it('latest of optional times', () => {
    expect([latest(undefined, undefined), latest(1, undefined), latest(undefined, 2), latest(3, 2)]).toEqual([
      undefined,
      1,
      2,
      3,
    ]);
  });
});

const pod = (phase: string | undefined, opts: { ready?: boolean; deleting?: boolean } = {}): k8s.V1Pod => ({
  metadata: {
    name: 'db-0',
    namespace: 'shop',
    uid: 'u1',
    resourceVersion: '7',
    creationTimestamp: new Date(T0),
    ...(opts.deleting ? { deletionTimestamp: new Date(T1), deletionGracePeriodSeconds: 30 } : {}),
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'o0' },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'o1', controller: true },
    ],
    annotations: { big: 'x'.repeat(1000) },
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: {
    nodeName: 'a1-1',
    terminationGracePeriodSeconds: 30,
    containers: [{ name: 'app', image: 'db:1' }],
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
      { name: 'tmp', emptyDir: {} },
    ],
  },
  status: {
    ...(phase ? { phase } : {}),
    podIP: '10.0.0.5',
    conditions: [{ type: 'Ready', status: opts.ready ? 'True' : 'False' }],
  },
});

describe('podState', () => {
  it.each([
    ['Pending', {}, 'Pending'],
    ['Running', {}, 'Running'],
    ['Running', { ready: true }, 'Ready'],
    ['Running', { ready: true, deleting: true }, 'Terminating'],
    ['Succeeded', {}, 'Succeeded'],
    ['Failed', {}, 'Failed'],
    ['Unknown', {}, 'Unknown'],
    [undefined, {}, 'Pending'],
  ] as const)('phase %s %o -> %s', (phase, opts, want) => {
    expect(podState(pod(phase, opts))).toBe(want);
  });
});

describe('podView', () => {
  it('keeps identity, placement, deletion and claims; drops the rest', () => {
    const v = podView(pod('Running', { ready: true, deleting: true }));
    expect(v).toEqual({
      uid: 'u1',
      namespace: 'shop',
      name: 'db-0',
      node: 'a1-1',
      state: 'Terminating',
      phase: 'Running',
      ready: true,
      createdAt: ms(T0),
      deletionTimestamp: ms(T1),
      deletionGracePeriodSeconds: 30,
      terminationGracePeriodSeconds: 30,
      owner: { kind: 'StatefulSet', name: 'db' },
      claims: ['data-db-0'],
      podIP: '10.0.0.5',
      resourceVersion: '7',
    });
    expect(JSON.stringify(v)).not.toMatch(/managedFields|annotations|image/);
  });

  it('accepts the string times of watch events', () => {
    const p = pod('Pending');
    p.metadata!.creationTimestamp = T0 as any;
    expect(podView(p).createdAt).toBe(ms(T0));
  });
});

describe('podDetail', () => {
  it.each([
    [{ running: { startedAt: new Date(T0) } }, { state: 'running', startedAt: ms(T0) }],
    [{ waiting: { reason: 'ContainerCreating' } }, { state: 'waiting', reason: 'ContainerCreating' }],
    [
      { terminated: { exitCode: 137, reason: 'Error' } },
      { state: 'terminated', exitCode: 137, reason: 'Error' },
    ],
    [{}, { state: 'unknown' }],
  ])('container state %o', (state, want) => {
    const p = pod('Running');
    p.status!.containerStatuses = [
      { name: 'app', ready: false, restartCount: 1, image: 'db:1', imageID: '', state },
    ];
    expect(podDetail(p).containerStatuses[0]).toMatchObject({ name: 'app', restartCount: 1, ...want });
  });

  it('lists volumes with their claims', () => {
    expect(podDetail(pod('Running')).volumes).toEqual([
      { name: 'data', claim: 'data-db-0' },
      { name: 'tmp' },
    ]);
  });
});

describe('other views', () => {
  it.each([
    [
      'pvc',
      () =>
        pvcView({
          metadata: { name: 'c', namespace: 'n' },
          spec: { volumeName: 'pv1', accessModes: ['ReadWriteOnce'] },
          status: { phase: 'Bound' },
        }),
      { name: 'c', namespace: 'n', boundTo: 'pv1', phase: 'Bound', accessModes: ['ReadWriteOnce'] },
    ],
    [
      'attachment',
      () =>
        attachmentView({
          metadata: { name: 'va' },
          spec: { attacher: 'x', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } },
          status: { attached: true },
        }),
      { name: 'va', pv: 'pv1', node: 'n1', attached: true },
    ],
    [
      'workload',
      () =>
        workloadView('ReplicaSet', {
          metadata: {
            name: 'web-1',
            namespace: 'n',
            uid: 'r',
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd', controller: true },
            ],
          },
          spec: { replicas: 3, selector: {} },
        }),
      { kind: 'ReplicaSet', replicas: 3, readyReplicas: 0, owner: { kind: 'Deployment', name: 'web' } },
    ],
    [
      'event',
      () =>
        eventView({
          metadata: { name: 'e', namespace: 'n', uid: 'e1' },
          involvedObject: { kind: 'Pod', name: 'p', namespace: 'n' },
          reason: 'Killing',
          lastTimestamp: new Date(T1),
        }),
      {
        uid: 'e1',
        reason: 'Killing',
        count: 1,
        lastSeen: ms(T1),
        involved: { kind: 'Pod', name: 'p', namespace: 'n' },
      },
    ],
  ])('%s', (_name, make, want) => {
    expect(make()).toMatchObject(want);
  });
});
