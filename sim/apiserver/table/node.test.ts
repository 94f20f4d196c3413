import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, ago, obj, resource } from './testutil.js';

const NODES = resource('Node', '', { namespaced: false });

function node(
  ready: string | undefined,
  opts: { labels?: Record<string, string>; unschedulable?: boolean } = {},
) {
  const conditions = [{ type: 'MemoryPressure', status: 'False' }];
  if (ready) conditions.push({ type: 'Ready', status: ready });
  return obj(
    'worker-1',
    {
      spec: opts.unschedulable ? { unschedulable: true } : {},
      status: {
        conditions,
        addresses: [
          { type: 'Hostname', address: 'worker-1' },
          { type: 'InternalIP', address: '172.18.0.3' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.20.15',
          osImage: 'Debian GNU/Linux 11 (bullseye)',
          kernelVersion: '5.10.0-28-amd64',
          containerRuntimeVersion: 'containerd://1.4.13',
        },
      },
    },
    { labels: opts.labels ?? {}, creationTimestamp: ago(2 * 86400 + 3 * 3600) },
  );
}

function cells(n: KubeObject) {
  return toTable(NODES, [n], { includeObject: 'None', resourceVersion: '9', now: NOW }).rows[0].cells;
}

describe('node printer', () => {
  it.each<[string, KubeObject, string, string]>([
    ['ready worker', node('True'), 'Ready', '<none>'],
    ['not ready', node('False'), 'NotReady', '<none>'],
    ['kubelet stopped posting', node('Unknown'), 'NotReady', '<none>'],
    ['never reported', node(undefined), 'Unknown', '<none>'],
    ['cordoned', node('True', { unschedulable: true }), 'Ready,SchedulingDisabled', '<none>'],
    ['cordoned and down', node('False', { unschedulable: true }), 'NotReady,SchedulingDisabled', '<none>'],
    [
      'control plane',
      node('True', {
        labels: {
          'node-role.kubernetes.io/master': '',
          'node-role.kubernetes.io/control-plane': '',
          zone: 'a',
        },
      }),
      'Ready',
      'control-plane,master',
    ],
    [
      'legacy role label and empty role key ignored',
      node('True', { labels: { 'kubernetes.io/role': 'edge', 'node-role.kubernetes.io/': '' } }),
      'Ready',
      'edge',
    ],
  ])('%s', (_, n, status, roles) => {
    expect(cells(n).slice(0, 5)).toEqual(['worker-1', status, roles, '2d3h', 'v1.20.15']);
  });

  it('fills the wide columns, <none>/<unknown> when absent', () => {
    expect(cells(node('True')).slice(5)).toEqual([
      '172.18.0.3',
      '<none>',
      'Debian GNU/Linux 11 (bullseye)',
      '5.10.0-28-amd64',
      'containerd://1.4.13',
    ]);
    expect(cells(obj('bare')).slice(1)).toEqual([
      'Unknown',
      '<none>',
      '60m',
      '',
      '<none>',
      '<none>',
      '<unknown>',
      '<unknown>',
      '<unknown>',
    ]);
  });
});
