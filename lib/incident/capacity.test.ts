import { describe, expect, it } from 'vitest';
import type { NodeView, PodView } from '../console/protocol.js';
import type { NodeRoom, WorkloadView } from '../console/views.js';
import { capacityOf } from './capacity.js';
import type { Capacity, VolumePin } from './types.js';
import { replacementSubject, replacementText, zoneText } from './capacityText.js';
import { input, node, pod } from './fixtures.test-helpers.js';

const GiB = 2 ** 30;
const zoneNode = (
  name: string,
  zone: string,
  ready: NodeView['ready'] = 'Ready',
  more: Partial<NodeView> = {},
) => node(name, ready, { zone, rack: `${zone}-r`, ...more });
const room = (name: string, zone: string, milliCpu = 4000, memory = 8 * GiB, pods = 10): NodeRoom => ({
  name,
  labels: { 'topology.kubernetes.io/zone': zone, 'kubernetes.io/hostname': name },
  allocatable: { milliCpu, memory, pods },
});
const zonePin = (claim: string, zone: string): VolumePin => ({
  pv: `pv-${claim}`,
  claim: { namespace: 'shop', name: claim },
  terms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }],
});
const sts = (name: string): WorkloadView => ({
  kind: 'StatefulSet',
  namespace: 'shop',
  name,
  uid: name,
  replicas: 3,
  readyReplicas: 2,
});
const deploy = (name: string): WorkloadView => ({ ...sts(name), kind: 'Deployment' });
const req = { milliCpu: 500, memory: GiB };
const dbPod = (name: string, on: string, more: Partial<PodView> = {}) =>
  pod(name, on, {
    owner: { kind: 'StatefulSet', name: 'db' },
    claims: [`data-${name}`],
    requests: req,
    ...more,
  });
const webPod = (name: string, on: string, more: Partial<PodView> = {}) =>
  pod(name, on, { owner: { kind: 'ReplicaSet', name: 'web-5d8f' }, requests: req, ...more });

/** zone-a up (a1, a2), zone-b down (b1, b2) */
const nodes = [
  zoneNode('a1', 'zone-a'),
  zoneNode('a2', 'zone-a'),
  zoneNode('b1', 'zone-b', 'Unknown'),
  zoneNode('b2', 'zone-b', 'Unknown'),
];
const rooms = [room('a1', 'zone-a'), room('a2', 'zone-a'), room('b1', 'zone-b'), room('b2', 'zone-b')];
const workloads = [sts('db'), deploy('web')];

function capacity(
  pods: PodView[],
  pins: VolumePin[] = [],
  more: { nodes?: NodeView[]; rooms?: NodeRoom[] } = {},
) {
  return capacityOf(
    input({ nodes: more.nodes ?? nodes, pods, workloads, placement: { rooms: more.rooms ?? rooms, pins } }),
  ) as Capacity;
}

describe('capacityOf: room per zone', () => {
  it('counts only up nodes, and what their pods request', () => {
    const c = capacity([webPod('web-1', 'a1'), webPod('web-2', 'b1')]);
    expect(c.zones).toEqual([
      {
        zone: 'zone-a',
        nodes: 2,
        up: 2,
        milliCpu: { free: 7500, total: 8000 },
        memory: { free: 15 * GiB, total: 16 * GiB },
        pods: { free: 19, total: 20 },
      },
      { zone: 'zone-b', nodes: 2, up: 0 },
    ]);
    expect(zoneText(c.zones[0]!)).toBe(
      'zone-a: 2 of 2 nodes up; free 7.5 of 8 CPU, 15 GiB of 16 GiB memory, 19 of 20 pod slots',
    );
    expect(zoneText(c.zones[1]!)).toBe('zone-b: 0 of 2 nodes up: no room');
  });

  it('leaves a cordoned node out of the room', () => {
    const c = capacity([], [], {
      nodes: [zoneNode('a1', 'zone-a', 'Ready', { unschedulable: true }), nodes[1]!],
    });
    expect(c.zones[0]).toMatchObject({ zone: 'zone-a', nodes: 2, up: 1 });
  });

  it('is absent without placement facts', () => {
    expect(capacityOf(input({ nodes }))).toBeUndefined();
  });
});

describe('capacityOf: where each stuck replacement can start', () => {
  const cases: [string, PodView[], VolumePin[], string[]][] = [
    [
      'a Deployment fits in the surviving zone',
      [webPod('web-1', 'b1'), webPod('web-2', 'b2')],
      [],
      ['shop/web (2 pods of its Deployment; 0.5 CPU, 1 GiB each): can start again in zone-a (2 nodes)'],
    ],
    [
      'a StatefulSet pod whose volume lives in the dark zone cannot, fenced or not',
      [dbPod('db-1', 'b1')],
      [zonePin('data-db-1', 'zone-b')],
      [
        "shop/db-1 (StatefulSet db; 0.5 CPU, 1 GiB): cannot start anywhere now: its volume is reachable only from zone-b, where no node with room is up (fencing releases the pod, not the volume's zone)",
      ],
    ],
    [
      'each StatefulSet pod on its own: a sibling whose volume is in zone-a fits',
      [dbPod('db-1', 'b1'), dbPod('db-2', 'b2')],
      [zonePin('data-db-1', 'zone-b'), zonePin('data-db-2', 'zone-a')],
      [
        "shop/db-1 (StatefulSet db; 0.5 CPU, 1 GiB): cannot start anywhere now: its volume is reachable only from zone-b, where no node with room is up (fencing releases the pod, not the volume's zone)",
        'shop/db-2 (StatefulSet db; 0.5 CPU, 1 GiB): can start again in zone-a (2 nodes)',
      ],
    ],
    [
      'too big for what is left',
      [webPod('web-1', 'b1', { requests: { milliCpu: 6000, memory: GiB } })],
      [],
      [
        'shop/web (1 pod of its Deployment; 6 CPU, 1 GiB): cannot start anywhere now: 2 nodes up have too little CPU, memory or pod slots left',
      ],
    ],
    [
      'a node selector no up node matches',
      [webPod('web-1', 'b1', { constraints: { nodeSelector: { 'topology.kubernetes.io/zone': 'zone-b' } } })],
      [],
      [
        "shop/web (1 pod of its Deployment; 0.5 CPU, 1 GiB): cannot start anywhere now: 2 nodes up didn't match its node selector or affinity",
      ],
    ],
    ['pods on up nodes are not stuck', [webPod('web-1', 'a1')], [], []],
    ['finished pods are not stuck', [webPod('web-1', 'b1', { phase: 'Succeeded' })], [], []],
  ];
  it.each(cases)('%s', (_, pods, pins, want) => {
    const c = capacity(pods, pins);
    expect(c.replacements.map((r) => `${replacementSubject(r)}: ${replacementText(r)}`)).toEqual(want);
  });

  it('a taint the pod does not tolerate rules a node out; a toleration lets it in', () => {
    const tainted = nodes.map((n) =>
      n.zone === 'zone-a' ? { ...n, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } : n,
    );
    const stuck = capacity([webPod('web-1', 'b1')], [], { nodes: tainted }).replacements[0]!;
    expect(stuck.fits).toEqual([]);
    expect(stuck.unfit).toEqual({ taint: 2 });
    expect(replacementText(stuck)).toBe(
      'cannot start anywhere now: 2 nodes up have taints it does not tolerate',
    );
    const tolerant = webPod('web-1', 'b1', {
      constraints: { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    expect(capacity([tolerant], [], { nodes: tainted }).replacements[0]!.fits).toEqual([
      { zone: 'zone-a', nodes: 2 },
    ]);
  });

  it('required node affinity, as the scheduler reads it (terms ORed)', () => {
    const affine = webPod('web-1', 'b1', {
      constraints: {
        affinity: [
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['nowhere'] }] },
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['a2'] }] },
        ],
      },
    });
    expect(capacity([affine]).replacements[0]!.fits).toEqual([{ zone: 'zone-a', nodes: 1 }]);
  });

  it('the nodes that can take it are counted after what runs there already', () => {
    // a1 is full (8 pods of 0.5 CPU = 4 CPU): only a2 takes another
    const full = Array.from({ length: 8 }, (_, k) => webPod(`x-${k}`, 'a1'));
    const c = capacity([...full, webPod('web-1', 'b1')]);
    expect(c.replacements.map((r) => r.fits)).toEqual([[{ zone: 'zone-a', nodes: 1 }]]);
  });

  it('nowhere to go comes first', () => {
    const c = capacity([webPod('web-1', 'b1'), dbPod('db-1', 'b2')], [zonePin('data-db-1', 'zone-b')]);
    expect(c.replacements.map((r) => r.stuck[0])).toEqual(['db-1', 'web-1']);
  });

  it('judges alike pods once, and lists the first 25 (nowhere-to-go first), counting the rest', () => {
    const many = Array.from({ length: 40 }, (_, k) => dbPod(`db-${k}`, k % 2 ? 'b1' : 'b2'));
    const pins = many.map((p, k) => zonePin(`data-${p.name}`, k < 5 ? 'zone-b' : 'zone-a'));
    const c = capacity(many, pins);
    expect(c.replacements).toHaveLength(25);
    expect(c.more).toBe(15);
    // the five whose volume lives in the dark zone come first
    expect(c.replacements.slice(0, 5).every((r) => r.fits.length === 0)).toBe(true);
    expect(c.replacements[5]!.fits).toEqual([{ zone: 'zone-a', nodes: 2 }]);
  });

  it('with every node down, says so', () => {
    const dark = nodes.map((n) => ({ ...n, ready: 'Unknown' as const }));
    const c = capacity([webPod('web-1', 'b1')], [], { nodes: dark });
    expect(replacementText(c.replacements[0]!)).toBe('cannot start anywhere now: no node is up');
  });
});
