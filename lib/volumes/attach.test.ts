import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  type PodRef,
  claimNamesOfPod,
  multiAttachAllowed,
  multiAttachMessage,
  planAttachments,
  podHoldsVolumes,
} from './attach.js';

const pod = (name: string, node: string, namespace = 'db'): PodRef => ({
  namespace,
  name,
  uid: `u-${name}`,
  node,
});
const all = () => true;

describe('multiAttachAllowed', () => {
  it.each([
    [['ReadWriteOnce'], false],
    [['ReadWriteOncePod'], false],
    [['ReadWriteMany'], true],
    [['ReadOnlyMany'], true],
    [['ReadWriteOnce', 'ReadWriteMany'], true],
    [[], true],
  ])('%j -> %s', (modes, want) => expect(multiAttachAllowed(modes)).toBe(want));
});

describe('planAttachments', () => {
  const rwo = ['ReadWriteOnce'];
  const cases: {
    name: string;
    modes?: string[];
    wanting: PodRef[];
    attached: string[];
    attachable?: (n: string) => boolean;
    attach: string[];
    blocked?: { node: string; attachedTo: string[]; blockers: string[] }[];
  }[] = [
    { name: 'first attachment', modes: rwo, wanting: [pod('a', 'n1')], attached: [], attach: ['n1'] },
    { name: 'already attached', modes: rwo, wanting: [pod('a', 'n1')], attached: ['n1'], attach: [] },
    {
      name: 'RWO held by a node whose pod is gone',
      modes: rwo,
      wanting: [pod('b', 'n2')],
      attached: ['n1'],
      attach: [],
      blocked: [{ node: 'n2', attachedTo: ['n1'], blockers: [] }],
    },
    {
      name: 'RWO held by a node whose pod still runs',
      modes: rwo,
      wanting: [pod('a', 'n1'), pod('b', 'n2')],
      attached: ['n1'],
      attach: [],
      blocked: [{ node: 'n2', attachedTo: ['n1'], blockers: ['a'] }],
    },
    {
      name: 'RWO wanted on two nodes at once: the first wins',
      modes: rwo,
      wanting: [pod('a', 'n1'), pod('b', 'n2')],
      attached: [],
      attach: ['n1'],
      blocked: [{ node: 'n2', attachedTo: ['n1'], blockers: ['a'] }],
    },
    {
      name: 'RWOP is exclusive too',
      modes: ['ReadWriteOncePod'],
      wanting: [pod('b', 'n2')],
      attached: ['n1'],
      attach: [],
      blocked: [{ node: 'n2', attachedTo: ['n1'], blockers: [] }],
    },
    {
      name: 'RWX attaches everywhere',
      modes: ['ReadWriteMany'],
      wanting: [pod('a', 'n1'), pod('b', 'n2')],
      attached: ['n1'],
      attach: ['n2'],
    },
    {
      name: 'two pods, one node',
      modes: rwo,
      wanting: [pod('a', 'n1'), pod('b', 'n1')],
      attached: [],
      attach: ['n1'],
    },
    {
      name: 'unknown node',
      modes: rwo,
      wanting: [pod('a', 'gone')],
      attached: [],
      attachable: (n) => n !== 'gone',
      attach: [],
    },
  ];
  it.each(cases)('$name', (c) => {
    const plan = planAttachments({
      accessModes: c.modes,
      wanting: c.wanting,
      attachedNodes: c.attached,
      attachable: c.attachable ?? all,
    });
    expect(plan.attach).toEqual(c.attach);
    expect(
      plan.blocked.map((b) => ({
        node: b.node,
        attachedTo: b.attachedTo,
        blockers: b.blockers.map((p) => p.name),
      })),
    ).toEqual(c.blocked ?? []);
  });
});

describe('multiAttachMessage', () => {
  const waiting = pod('web-1', 'n2');
  it.each([
    [[], "Volume is already exclusively attached to one node and can't be attached to another"],
    [[pod('web-0', 'n1')], 'Volume is already used by pod(s) web-0'],
    [
      [pod('web-0', 'n1'), pod('x', 'n1', 'other')],
      'Volume is already used by pod(s) web-0 and 1 pod(s) in different namespaces',
    ],
    [
      [pod('x', 'n1', 'other'), pod('y', 'n1', 'other')],
      'Volume is already used by 2 pod(s) in different namespaces',
    ],
  ])('blockers %#', (blockers, tail) =>
    expect(multiAttachMessage('pvc-1', waiting, blockers)).toBe(
      `Multi-Attach error for volume "pvc-1" ${tail}`,
    ),
  );
});

describe('pods and claims', () => {
  const p = (spec: Partial<k8s.V1PodSpec>, phase?: string): k8s.V1Pod => ({
    metadata: { name: 'web-0' },
    spec: { containers: [], ...spec },
    status: { phase },
  });
  it('lists claims, ephemeral ones by their generated name', () => {
    const volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      { name: 'cfg', configMap: { name: 'c' } },
    ];
    expect(claimNamesOfPod(p({ volumes }))).toEqual(['data-web-0', 'web-0-scratch']);
  });
  it.each([
    [{ nodeName: 'n1' }, 'Running', true],
    [{ nodeName: 'n1' }, 'Pending', true],
    [{ nodeName: 'n1' }, 'Succeeded', false],
    [{ nodeName: 'n1' }, 'Failed', false],
    [{}, 'Pending', false],
  ])('%j %s holds volumes: %s', (spec, phase, want) => expect(podHoldsVolumes(p(spec, phase))).toBe(want));
});
