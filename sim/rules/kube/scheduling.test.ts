import { describe, expect, it } from 'vitest';
import {
  chooseNode,
  feasibleNodesToFind,
  fitErrorMessage,
  type NodeSelector,
  type NodeView,
  nodeSelectorMatches,
  type PodDemand,
  topologyTermsMatch,
  unfitReasons,
} from './scheduling.js';

describe('nodeSelectorMatches', () => {
  const labels = { zone: 'a', disk: 'ssd', cores: '16' };
  const term = (
    ...matchExpressions: { key: string; operator: string; values?: string[] }[]
  ): NodeSelector => ({
    nodeSelectorTerms: [{ matchExpressions }],
  });
  const cases: [string, NodeSelector | undefined, boolean][] = [
    ['In', term({ key: 'zone', operator: 'In', values: ['a', 'b'] }), true],
    ['In, other value', term({ key: 'zone', operator: 'In', values: ['b'] }), false],
    ['NotIn with the label missing', term({ key: 'rack', operator: 'NotIn', values: ['r1'] }), true],
    ['Exists', term({ key: 'disk', operator: 'Exists' }), true],
    ['DoesNotExist', term({ key: 'disk', operator: 'DoesNotExist' }), false],
    ['Gt', term({ key: 'cores', operator: 'Gt', values: ['8'] }), true],
    ['Lt', term({ key: 'cores', operator: 'Lt', values: ['8'] }), false],
    [
      'requirements of a term are ANDed',
      term({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'disk', operator: 'In', values: ['hdd'] }),
      false,
    ],
    [
      'terms are ORed',
      {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
          { matchExpressions: [{ key: 'disk', operator: 'Exists' }] },
        ],
      },
      true,
    ],
    ['an empty term matches nothing', { nodeSelectorTerms: [{}] }, false],
    ['no terms match nothing', { nodeSelectorTerms: [] }, false],
    ['unknown operator', term({ key: 'zone', operator: 'Like', values: ['a'] }), false],
    [
      'matchFields on the node name',
      { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
      true,
    ],
    [
      'matchFields on another name',
      { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] },
      false,
    ],
  ];
  it.each(cases)('%s', (_, sel, want) => {
    expect(nodeSelectorMatches(sel, labels, 'n1')).toBe(want);
  });
});

describe('topologyTermsMatch', () => {
  const labels = { 'topology.kubernetes.io/zone': 'a' };
  const zone = (...values: string[]) => ({
    matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values }],
  });
  const cases: [string, Parameters<typeof topologyTermsMatch>[0], boolean][] = [
    ['no allowed topologies', undefined, true],
    ['empty list', [], true],
    ['matching zone', [zone('a', 'b')], true],
    ['other zone', [zone('b')], false],
    ['any term matches', [zone('b'), zone('a')], true],
    ['an empty term allows nothing', [{ matchLabelExpressions: [] }], false],
    ['a missing label', [{ matchLabelExpressions: [{ key: 'rack', values: [''] }] }], false],
  ];
  it.each(cases)('%s', (_, terms, want) => {
    expect(topologyTermsMatch(terms, labels)).toBe(want);
  });
});

const node = (name: string, extra: Partial<NodeView> = {}): NodeView => ({
  name,
  labels: { zone: 'a' },
  taints: [],
  unschedulable: false,
  ready: 'True',
  allocatable: { milliCpu: 2000, memory: 4 * 2 ** 30, pods: 10 },
  requested: { milliCpu: 0, memory: 0, pods: 0 },
  ...extra,
});
const pod = (extra: Partial<PodDemand> = {}): PodDemand => ({
  requests: { milliCpu: 500, memory: 2 ** 30 },
  volumes: [],
  ...extra,
});

describe('unfitReasons', () => {
  const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
  const zoneB: NodeSelector = {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }],
  };
  const cases: [string, PodDemand, NodeView, string[]][] = [
    ['a node with room', pod(), node('n'), []],
    ['a cordoned node', pod(), node('n', { unschedulable: true }), ['node(s) were unschedulable']],
    [
      'a cordoned node, tolerated',
      pod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }] }),
      node('n', { unschedulable: true }),
      [],
    ],
    [
      'an untolerated taint',
      pod(),
      node('n', { taints: [unreachable] }),
      ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }'],
    ],
    [
      'PreferNoSchedule is not a filter',
      pod(),
      node('n', { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] }),
      [],
    ],
    [
      'a NotReady node not yet tainted',
      pod(),
      node('n', { ready: 'False' }),
      ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
    ],
    [
      'a node in Unknown not yet tainted',
      pod(),
      node('n', { ready: 'Unknown' }),
      ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }'],
    ],
    [
      'nodeSelector',
      pod({ nodeSelector: { zone: 'b' } }),
      node('n'),
      ["node(s) didn't match Pod's node affinity/selector"],
    ],
    [
      'required node affinity',
      pod({ requiredAffinity: zoneB }),
      node('n'),
      ["node(s) didn't match Pod's node affinity/selector"],
    ],
    [
      'full of pods',
      pod(),
      node('n', { requested: { milliCpu: 0, memory: 0, pods: 10 } }),
      ['Too many pods'],
    ],
    [
      'short of CPU and memory',
      pod(),
      node('n', { requested: { milliCpu: 1600, memory: 3.5 * 2 ** 30, pods: 3 } }),
      ['Insufficient cpu', 'Insufficient memory'],
    ],
    [
      'exactly full is enough',
      pod(),
      node('n', { requested: { milliCpu: 1500, memory: 3 * 2 ** 30, pods: 9 } }),
      [],
    ],
    [
      'a pod without requests fits anywhere with pod room',
      pod({ requests: { milliCpu: 0, memory: 0 } }),
      node('n', { requested: { milliCpu: 9999, memory: 0, pods: 1 } }),
      [],
    ],
    ['no cpu reported: not limited', pod(), node('n', { allocatable: { pods: 5 } }), []],
    [
      'a bound PV elsewhere',
      pod({ volumes: [{ kind: 'bound', required: zoneB }] }),
      node('n'),
      ['node(s) had volume node affinity conflict'],
    ],
    ['a bound PV without affinity', pod({ volumes: [{ kind: 'bound' }] }), node('n'), []],
    [
      'a PV that does not exist',
      pod({ volumes: [{ kind: 'missingPv' }] }),
      node('n'),
      ['node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)'],
    ],
    [
      'a class whose topologies exclude the node',
      pod({
        volumes: [
          {
            kind: 'provision',
            allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['b'] }] }],
          },
        ],
      }),
      node('n'),
      ["node(s) didn't find available persistent volumes to bind"],
    ],
    [
      'the first failing check wins',
      pod({ nodeSelector: { zone: 'b' } }),
      node('n', { taints: [unreachable], requested: { milliCpu: 2000, memory: 0, pods: 10 } }),
      ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }'],
    ],
  ];
  it.each(cases)('%s', (_, p, n, want) => {
    expect(unfitReasons(p, n)).toEqual(want);
  });
});

describe('fitErrorMessage', () => {
  it('prints the sorted histogram like kube-scheduler', () => {
    const msg = fitErrorMessage(3, [
      ['Insufficient cpu'],
      ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }'],
      ['Insufficient cpu'],
    ]);
    expect(msg).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.',
    );
  });

  it('counts every reason of a node', () => {
    expect(fitErrorMessage(2, [['Insufficient cpu', 'Insufficient memory'], ['Insufficient cpu']])).toBe(
      '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.',
    );
  });

  it('uses a pre-filter message instead of the histogram', () => {
    expect(fitErrorMessage(3, [], 'pod has unbound immediate PersistentVolumeClaims')).toBe(
      '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
    );
  });

  it('says so when there are no nodes', () => {
    expect(fitErrorMessage(0, [])).toBe('no nodes available to schedule pods');
  });
});

describe('feasibleNodesToFind', () => {
  const cases: [number, number][] = [
    [0, 0],
    [99, 99],
    [100, 100],
    [500, 230],
    [5000, 500],
    [10_000, 500],
  ];
  it.each(cases)('%i nodes -> %i', (nodes, want) => {
    expect(feasibleNodesToFind(nodes)).toBe(want);
  });
});

describe('chooseNode', () => {
  const busy = (name: string, pods: number) => node(name, { requested: { milliCpu: 0, memory: 0, pods } });
  it('spreads to the node with the fewest pods, then by name', () => {
    expect(chooseNode([busy('c', 1), busy('b', 0), busy('a', 2)])?.name).toBe('b');
    expect(chooseNode([busy('c', 1), busy('b', 1)])?.name).toBe('b');
    expect(chooseNode([])).toBeUndefined();
  });

  it('keeps a preferred node if it is feasible', () => {
    expect(chooseNode([busy('a', 0), busy('b', 5)], 'b')?.name).toBe('b');
    expect(chooseNode([busy('a', 0), busy('b', 5)], 'gone')?.name).toBe('a');
  });
});
