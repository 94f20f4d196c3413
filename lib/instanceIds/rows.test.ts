import { describe, expect, it } from 'vitest';
import type { PodView } from '../console/protocol.js';
import type { WorkloadView } from '../console/views.js';
import { rowFlags } from './flags.js';
import { instanceIdRows } from './rows.js';

const workload = (
  kind: WorkloadView['kind'],
  name: string,
  extra: Partial<WorkloadView> = {},
): WorkloadView => ({
  kind,
  namespace: 'shop',
  name,
  uid: `uid-${name}`,
  replicas: 2,
  readyReplicas: 2,
  ...extra,
});

const pod = (name: string, owner: PodView['owner'], extra: Partial<PodView> = {}): PodView => ({
  uid: `uid-${name}`,
  namespace: 'shop',
  name,
  node: 'n1',
  state: 'Ready',
  phase: 'Running',
  ready: true,
  claims: [],
  resourceVersion: '1',
  owner,
  ...extra,
});

describe('the instance-IDs rows', () => {
  const workloads = [
    workload('Deployment', 'web', { instanceIds: '{"0":"web-a","1":"web-gone"}' }),
    workload('StatefulSet', 'db', { instanceIdsEnabled: true, replicas: 1 }),
    workload('Deployment', 'plain'),
  ];
  const replicaSets = [
    workload('ReplicaSet', 'web-1', { owner: { kind: 'Deployment', name: 'web' } }),
    workload('ReplicaSet', 'web-2', { owner: { kind: 'Deployment', name: 'web' } }),
    workload('ReplicaSet', 'plain-1', { owner: { kind: 'Deployment', name: 'plain' } }),
  ];
  const pods = [
    pod('web-a', { kind: 'ReplicaSet', name: 'web-1' }),
    // a rollout: the new ReplicaSet's pod belongs to the same Deployment
    pod('web-b', { kind: 'ReplicaSet', name: 'web-2' }, { node: 'n2' }),
    pod('db-0', { kind: 'StatefulSet', name: 'db' }, { deletionTimestamp: 1, state: 'Terminating' }),
    pod('plain-x', { kind: 'ReplicaSet', name: 'plain-1' }),
    pod('bare', undefined),
  ];

  it('lists the workloads using instance IDs, with their pods across ReplicaSets', () => {
    const rows = instanceIdRows({ workloads, replicaSets, pods });
    expect(rows.map((r) => r.key)).toEqual(['shop/Deployment/web', 'shop/StatefulSet/db']);
    const [web, db] = rows;
    expect(web).toMatchObject({
      kind: 'Deployment',
      enabled: false,
      raw: '{"0":"web-a","1":"web-gone"}',
      pods: [
        { name: 'web-a', node: 'n1', state: 'Ready', id: 0 },
        { name: 'web-b', node: 'n2', state: 'Ready' },
      ],
      free: [],
      waiting: ['web-b'],
    });
    expect(web.stale).toEqual([{ key: '1', id: 1, pod: 'web-gone', state: 'gone' }]);
    expect(web.holders).toBeUndefined();
    expect(db).toMatchObject({ enabled: true, entries: [], free: [0], waiting: [] });
    expect(db.raw).toBeUndefined();
  });

  it('on the embedded cluster, who really holds which id, and ids held twice', () => {
    const truth = [
      {
        namespace: 'shop',
        podName: 'web-a',
        node: 'n1',
        instanceId: { workload: 'shop/Deployment/web', id: 0, since: 5 },
      },
      {
        namespace: 'shop',
        podName: 'web-b',
        node: 'n2',
        instanceId: { workload: 'shop/Deployment/web', id: 0, since: 9 },
      },
      { namespace: 'shop', podName: 'db-0', node: 'n1' },
    ];
    const [web, db] = instanceIdRows({ workloads, replicaSets, pods, truth });
    expect(web.holders).toEqual([
      { id: 0, pod: 'web-a', node: 'n1', since: 5 },
      { id: 0, pod: 'web-b', node: 'n2', since: 9 },
    ]);
    expect(web.duplicates).toEqual([{ id: 0, pods: ['web-a', 'web-b'] }]);
    expect(db.holders).toEqual([]);
    expect(db.duplicates).toEqual([]);
  });
});

describe('what a row is filtered by', () => {
  const base = { valid: true, conflicts: [], stale: [], waiting: [], duplicates: [] };
  it.each([
    [base, ['ok']],
    [{ ...base, valid: false }, ['conflict']],
    [{ ...base, duplicates: [{ id: 0, pods: ['a', 'b'] }] }, ['conflict']],
    [
      { ...base, stale: [{ key: '1', id: 1, pod: 'x', state: 'gone' as const }], waiting: ['y'] },
      ['stale', 'waiting'],
    ],
    [{ ...base, duplicates: undefined }, ['ok']],
  ])('%j', (row, flags) => expect([...rowFlags(row)]).toEqual(flags));

  it('says why a stale entry is kept: its pod is not known to have stopped', () => {
    const records = '{"web-gone":{"node":"c2-2","bootID":"boot-1"}}';
    const replicaSets = [workload('ReplicaSet', 'web-1', { owner: { kind: 'Deployment', name: 'web' } })];
    const pods = [pod('web-a', { kind: 'ReplicaSet', name: 'web-1' })];
    const seen: unknown[] = [];
    const [web] = instanceIdRows({
      workloads: [
        workload('Deployment', 'web', {
          instanceIds: '{"0":"web-a","1":"web-gone"}',
          instanceIdNodes: records,
        }),
      ],
      replicaSets,
      pods,
      judge: (ns, name, record) => {
        seen.push([ns, name, record]);
        return {
          stopped: false,
          reason: 'node-unreachable',
          text: `${name} on c2-2: node unreachable (Ready=Unknown), not fenced`,
        };
      },
    });
    expect(seen).toEqual([['shop', 'web-gone', { node: 'c2-2', bootID: 'boot-1' }]]);
    expect(web.records).toBe(records);
    expect(web.unconfirmed).toEqual([
      {
        id: 1,
        pod: 'web-gone',
        reason: 'node-unreachable',
        text: 'web-gone on c2-2: node unreachable (Ready=Unknown), not fenced',
      },
    ]);
    const stopped = instanceIdRows({
      workloads: [workload('Deployment', 'web', { instanceIds: '{"0":"web-a","1":"web-gone"}' })],
      replicaSets,
      pods,
      judge: () => ({ stopped: true, reason: 'node-fenced', text: 'fenced' }),
    });
    expect(stopped[0].unconfirmed).toEqual([]);
  });
});
