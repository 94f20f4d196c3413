import { describe, expect, it } from 'vitest';
import type { WorkloadView } from '../console/views.js';
import { input, NOW, node, pod } from './fixtures.test-helpers.js';
import { spreadOf, spreadText } from './spread.js';

const nodes = [
  node('a1-1', 'Ready', { zone: 'zone-a', rack: 'a1' }),
  node('a1-2', 'Ready', { zone: 'zone-a', rack: 'a1' }),
  node('a2-1', 'Ready', { zone: 'zone-a', rack: 'a2' }),
  node('b1-1', 'Ready', { zone: 'zone-b', rack: 'b1' }),
];
const sts = (name: string, replicas: number, ready = replicas): WorkloadView => ({
  kind: 'StatefulSet',
  namespace: 'shop',
  name,
  uid: `u-${name}`,
  replicas,
  readyReplicas: ready,
});
const db = (i: number, on: string, createdAt = NOW - 1_000 * (10 - i)) =>
  pod(`orders-db-${i}`, on, { owner: { kind: 'StatefulSet', name: 'orders-db' }, createdAt });

describe('spreadOf: replicas of one workload that one failure would take together', () => {
  it.each([
    { name: 'spread over zones: nothing to say', on: ['a1-1', 'a2-1', 'b1-1'], want: [] },
    {
      name: 'two on one node',
      on: ['a1-1', 'a1-1', 'b1-1'],
      want: ['same-node a1-1 orders-db-0,orders-db-1'],
    },
    {
      name: 'all in one rack',
      on: ['a1-1', 'a1-2', 'a1-2'],
      want: ['same-node a1-2 orders-db-1,orders-db-2'],
    },
    {
      name: 'all in one rack, each on its own node',
      on: ['a1-1', 'a1-2'],
      want: ['same-rack a1 orders-db-0,orders-db-1'],
    },
    {
      name: 'all in one zone, racks apart',
      on: ['a1-1', 'a2-1'],
      want: ['same-zone zone-a orders-db-0,orders-db-1'],
    },
  ])('$name', ({ on, want }) => {
    const i = input({ nodes, workloads: [sts('orders-db', on.length)], pods: on.map((n, k) => db(k, n)) });
    expect(spreadOf(i).map((s) => `${s.code} ${s.where} ${s.pods.join(',')}`)).toEqual(want);
  });

  it('counts only ready, live replicas, and a Deployment through its ReplicaSet', () => {
    const web: WorkloadView = { ...sts('web', 2), kind: 'Deployment' };
    const pods = [
      pod('web-7f9-a', 'a1-1', { owner: { kind: 'ReplicaSet', name: 'web-7f9' } }),
      pod('web-7f9-b', 'a1-1', { owner: { kind: 'ReplicaSet', name: 'web-7f9' } }),
      db(0, 'a1-1'),
      db(1, 'a1-1', NOW),
    ];
    pods[3] = { ...pods[3]!, ready: false };
    const got = spreadOf(input({ nodes, workloads: [web, sts('orders-db', 2, 1)], pods }));
    expect(got.map((s) => `${s.workload.kind} ${s.workload.name} ${s.code}`)).toEqual([
      'Deployment web same-node',
    ]);
  });

  it('names the newest to evict, and waits for full strength first', () => {
    const pods = [db(0, 'a1-1', NOW - 5_000), db(1, 'a1-1', NOW - 1_000), db(2, 'b1-1')];
    const [s] = spreadOf(input({ nodes, workloads: [sts('orders-db', 3)], pods }));
    expect(s!.evict).toEqual({ namespace: 'shop', name: 'orders-db-1' });
    expect(spreadText(s!)).toEqual({
      what: 'orders-db: 2 of its 3 ready replicas in one node, a1-1 (orders-db-0, orders-db-1): losing it takes them together',
      next: 'evict shop/orders-db-1 (its protector and PDBs apply): the scheduler places it again, elsewhere if its spread rules allow',
    });
    const [short] = spreadOf(input({ nodes, workloads: [sts('orders-db', 4, 3)], pods }));
    expect(spreadText(short!).next).toBe('wait until orders-db is at full strength, then evict orders-db-1');
  });

  it('two of eight on one node is what a scheduler does: only a majority on one node is flagged', () => {
    const web: WorkloadView = { ...sts('web', 8), kind: 'Deployment' };
    const on = ['a1-1', 'a1-1', 'a1-2', 'a1-2', 'a2-1', 'a2-1', 'b1-1', 'b1-1'];
    const pods = on.map((n, k) => pod(`web-7f9-${k}`, n, { owner: { kind: 'ReplicaSet', name: 'web-7f9' } }));
    expect(spreadOf(input({ nodes, workloads: [web], pods }))).toEqual([]);
  });

  it('a one-rack cluster is not flagged for its one rack', () => {
    const one = nodes.slice(0, 2);
    const i = input({ nodes: one, workloads: [sts('orders-db', 2)], pods: [db(0, 'a1-1'), db(1, 'a1-2')] });
    expect(spreadOf(i)).toEqual([]);
  });
});
