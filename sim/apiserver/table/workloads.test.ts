import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, obj, resource } from './testutil.js';

function print(r: ResourceInfo, o: KubeObject) {
  const t = toTable(r, [o], { includeObject: 'None', resourceVersion: '1', now: NOW });
  return { headers: t.columnDefinitions.map((c) => c.name), cells: t.rows[0].cells };
}

const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'web', image: 'nginx:1.25' },
      { name: 'log', image: 'fluent-bit:2' },
    ],
  },
};

// [case, resource, object, headers, cells]
const cases: Array<[string, ResourceInfo, KubeObject, string[], unknown[]]> = [
  [
    'Deployment',
    resource('Deployment', 'apps'),
    obj('web', {
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'canary'] }],
        },
        template,
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    }),
    ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
    ['web', '2/3', 3, 2, '60m', 'web,log', 'nginx:1.25,fluent-bit:2', 'app=web,env in (canary,prod)'],
  ],
  [
    'Deployment without replicas or status',
    resource('Deployment', 'apps'),
    obj('new', { spec: { template } }),
    ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
    ['new', '0/1', 0, 0, '60m', 'web,log', 'nginx:1.25,fluent-bit:2', ''],
  ],
  [
    'ReplicaSet',
    resource('ReplicaSet', 'apps'),
    obj('web-5d9c', {
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d9c' } }, template },
      status: { replicas: 2, readyReplicas: 1 },
    }),
    ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector'],
    ['web-5d9c', 2, 2, 1, '60m', 'web,log', 'nginx:1.25,fluent-bit:2', 'app=web,pod-template-hash=5d9c'],
  ],
  [
    'StatefulSet',
    resource('StatefulSet', 'apps'),
    obj('pg', { spec: { replicas: 3, serviceName: 'pg', template }, status: { readyReplicas: 3 } }),
    ['Name', 'Ready', 'Age', 'Containers', 'Images'],
    ['pg', '3/3', '60m', 'web,log', 'nginx:1.25,fluent-bit:2'],
  ],
  [
    'DaemonSet',
    resource('DaemonSet', 'apps'),
    obj('agent', {
      spec: {
        selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
        template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux' } } },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    }),
    [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
      'Containers',
      'Images',
      'Selector',
    ],
    ['agent', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '60m', 'web,log', 'nginx:1.25,fluent-bit:2', 'app'],
  ],
  [
    'EndpointSlice',
    resource('EndpointSlice', 'discovery.k8s.io'),
    obj('web-abc12', {
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'all' }, {}],
      endpoints: [
        { addresses: ['10.244.1.2'] },
        { addresses: ['10.244.2.3'] },
        { addresses: ['10.244.3.4'] },
        { addresses: ['10.244.4.5'] },
      ],
    }),
    ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'],
    ['web-abc12', 'IPv4', '80,all,*', '10.244.1.2,10.244.2.3,10.244.3.4 + 1 more...', '60m'],
  ],
  [
    'EndpointSlice empty',
    resource('EndpointSlice', 'discovery.k8s.io'),
    obj('none', { addressType: 'IPv6' }),
    ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'],
    ['none', 'IPv6', '<unset>', '<unset>', '60m'],
  ],
  [
    'Lease',
    resource('Lease', 'coordination.k8s.io'),
    obj('worker-1', { spec: { holderIdentity: 'worker-1', leaseDurationSeconds: 40 } }),
    ['Name', 'Holder', 'Age'],
    ['worker-1', 'worker-1', '60m'],
  ],
  [
    'Lease unheld',
    resource('Lease', 'coordination.k8s.io'),
    obj('free', { spec: {} }),
    ['Name', 'Holder', 'Age'],
    ['free', '', '60m'],
  ],
  [
    'PodDisruptionBudget',
    resource('PodDisruptionBudget', 'policy'),
    obj('pg', { spec: { minAvailable: 2 }, status: { disruptionsAllowed: 1 } }),
    ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
    ['pg', '2', 'N/A', 1, '60m'],
  ],
  [
    'PodDisruptionBudget with percentage',
    resource('PodDisruptionBudget', 'policy'),
    obj('web', { spec: { maxUnavailable: '25%' } }),
    ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
    ['web', 'N/A', '25%', 0, '60m'],
  ],
  [
    'ValidatingWebhookConfiguration',
    resource('ValidatingWebhookConfiguration', 'admissionregistration.k8s.io'),
    obj('palisade', { webhooks: [{ name: 'a.palisade.dev' }, { name: 'b.palisade.dev' }] }),
    ['Name', 'Webhooks', 'Age'],
    ['palisade', 2, '60m'],
  ],
  [
    'ClusterRoleBinding',
    resource('ClusterRoleBinding', 'rbac.authorization.k8s.io'),
    obj('admins', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [
        { kind: 'Group', name: 'system:masters' },
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'palisade', namespace: 'palisade-system' },
      ],
    }),
    ['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts'],
    ['admins', 'ClusterRole/cluster-admin', '60m', 'alice', 'system:masters', 'palisade-system/palisade'],
  ],
];

describe('workload, networking, policy and RBAC printers', () => {
  it.each(cases)('%s', (_, r, o, headers, cells) => {
    const out = print(r, o);
    expect(out.headers).toEqual(headers);
    expect(out.cells).toEqual(cells);
  });

  it('every table names its name column with format "name"', () => {
    for (const [, r, o] of cases) {
      const t = toTable(r, [o], { includeObject: 'None', resourceVersion: '1', now: NOW });
      const named = t.columnDefinitions.findIndex((c) => c.format === 'name');
      // StorageClass appends " (default)" to the name cell, as the real printer does.
      expect(String(t.rows[0].cells[named]).startsWith(o.metadata.name ?? '')).toBe(true);
      expect(t.rows[0].cells).toHaveLength(t.columnDefinitions.length);
    }
  });
});
