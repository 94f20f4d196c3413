import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, ago, obj, resource } from './testutil.js';

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

// [kind, resource, object, headers, cells]
const cases: Array<[string, ResourceInfo, KubeObject, string[], unknown[]]> = [
  [
    'Namespace',
    resource('Namespace'),
    obj('team-a', { status: { phase: 'Active' } }),
    ['Name', 'Status', 'Age'],
    ['team-a', 'Active', '60m'],
  ],
  [
    'Namespace being deleted without a stored phase',
    resource('Namespace'),
    obj('old', {}, { deletionTimestamp: ago(1) }),
    ['Name', 'Status', 'Age'],
    ['old', 'Terminating', '60m'],
  ],
  [
    'ConfigMap counts data and binaryData',
    resource('ConfigMap'),
    obj('cfg', { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }),
    ['Name', 'Data', 'Age'],
    ['cfg', 3, '60m'],
  ],
  [
    'Secret',
    resource('Secret'),
    obj('tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'x', 'tls.key': 'y' } }),
    ['Name', 'Type', 'Data', 'Age'],
    ['tls', 'kubernetes.io/tls', 2, '60m'],
  ],
  [
    'Secret without type',
    resource('Secret'),
    obj('s'),
    ['Name', 'Type', 'Data', 'Age'],
    ['s', 'Opaque', 0, '60m'],
  ],
  [
    'ServiceAccount',
    resource('ServiceAccount'),
    obj('default', { secrets: [{ name: 'default-token-abcde' }] }),
    ['Name', 'Secrets', 'Age'],
    ['default', 1, '60m'],
  ],
  [
    'Service ClusterIP',
    resource('Service'),
    obj('web', {
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 9153, protocol: 'TCP' },
        ],
        selector: { tier: 'dns', app: 'coredns' },
      },
    }),
    ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    ['web', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,9153/TCP', '60m', 'app=coredns,tier=dns'],
  ],
  [
    'Service LoadBalancer pending with node port',
    resource('Service'),
    obj('lb', {
      spec: { type: 'LoadBalancer', clusterIP: '10.96.3.4', ports: [{ port: 80, nodePort: 30080 }] },
    }),
    ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    ['lb', 'LoadBalancer', '10.96.3.4', '<pending>', '80:30080/TCP', '60m', '<none>'],
  ],
  [
    'Service LoadBalancer with ingress',
    resource('Service'),
    obj('lb', {
      spec: { type: 'LoadBalancer', clusterIPs: ['10.96.3.4'], ports: [{ port: 443, protocol: 'TCP' }] },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }] } },
    }),
    ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    ['lb', 'LoadBalancer', '10.96.3.4', '203.0.113.9,lb.example.com', '443/TCP', '60m', '<none>'],
  ],
  [
    'Service ExternalName',
    resource('Service'),
    obj('ext', { spec: { type: 'ExternalName', externalName: 'db.example.com' } }),
    ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    ['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', '60m', '<none>'],
  ],
  [
    'Endpoints',
    resource('Endpoints'),
    obj('web', {
      subsets: [
        {
          addresses: [{ ip: '10.244.1.2' }, { ip: '10.244.2.3' }],
          ports: [
            { name: 'http', port: 80 },
            { name: 'https', port: 443 },
          ],
        },
      ],
    }),
    ['Name', 'Endpoints', 'Age'],
    ['web', '10.244.1.2:80,10.244.2.3:80,10.244.1.2:443 + 1 more...', '60m'],
  ],
  [
    'Event',
    resource('Event'),
    obj('web-0.17a', {
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default', fieldPath: 'spec.containers{web}' },
      reason: 'BackOff',
      message: 'Back-off restarting failed container\n',
      type: 'Warning',
      source: { component: 'kubelet', host: 'worker-1' },
      firstTimestamp: ago(3600),
      lastTimestamp: ago(30),
      count: 12,
    }),
    [
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ],
    [
      '30s',
      'Warning',
      'BackOff',
      'pod/web-0',
      'spec.containers{web}',
      'kubelet, worker-1',
      'Back-off restarting failed container',
      '60m',
      12,
      'web-0.17a',
    ],
  ],
  [
    'Event from the new API (eventTime, series, reporting fields)',
    resource('Event'),
    obj('n.1', {
      involvedObject: { kind: 'Node', name: 'worker-1' },
      reason: 'NodeNotReady',
      message: 'Node is not ready',
      type: 'Normal',
      eventTime: '2024-05-01T11:50:00.123456Z',
      series: { count: 4, lastObservedTime: '2024-05-01T11:59:00.000000Z' },
      reportingComponent: 'node-controller',
      reportingInstance: '',
    }),
    [
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ],
    // The event time is 9m59.877s old: units truncate, as in Go.
    [
      '60s',
      'Normal',
      'NodeNotReady',
      'node/worker-1',
      '',
      'node-controller',
      'Node is not ready',
      '9m59s',
      4,
      'n.1',
    ],
  ],
  [
    'events.k8s.io Event',
    resource('Event', 'events.k8s.io'),
    {
      ...obj('e', {
        regarding: { kind: 'Lease', name: 'holder' },
        reason: 'Fenced',
        note: 'fenced by palisade',
        type: 'Normal',
        eventTime: ago(90),
        reportingController: 'palisade',
        reportingInstance: 'palisade-0',
      }),
      apiVersion: 'events.k8s.io/v1',
    },
    [
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ],
    [
      '90s',
      'Normal',
      'Fenced',
      'lease/holder',
      '',
      'palisade, palisade-0',
      'fenced by palisade',
      '90s',
      1,
      'e',
    ],
  ],
  [
    'PersistentVolume bound',
    resource('PersistentVolume'),
    obj('pv-1', {
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        claimRef: { namespace: 'db', name: 'data-pg-0' },
        storageClassName: 'standard',
        volumeMode: 'Block',
      },
      status: { phase: 'Bound' },
    }),
    [
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode',
    ],
    ['pv-1', '10Gi', 'RWO,RWX', 'Delete', 'Bound', 'db/data-pg-0', 'standard', '<unset>', '', '60m', 'Block'],
  ],
  [
    'PersistentVolume released and deleting, beta class annotation',
    resource('PersistentVolume'),
    obj(
      'pv-2',
      {
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOncePod'],
          storageClassName: 'ignored',
        },
      },
      { deletionTimestamp: ago(2), annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } },
    ),
    [
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode',
    ],
    ['pv-2', '1Gi', 'RWOP', 'Retain', 'Terminating', '', 'legacy', '<unset>', '', '60m', 'Filesystem'],
  ],
  [
    'PersistentVolumeClaim bound',
    resource('PersistentVolumeClaim'),
    obj('data-pg-0', {
      spec: { volumeName: 'pv-1', storageClassName: 'standard', resources: { requests: { storage: '5Gi' } } },
      status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] },
    }),
    [
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode',
    ],
    ['data-pg-0', 'Bound', 'pv-1', '10Gi', 'RWO', 'standard', '<unset>', '60m', 'Filesystem'],
  ],
  [
    'PersistentVolumeClaim pending',
    resource('PersistentVolumeClaim'),
    obj('claim', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } }),
    [
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode',
    ],
    ['claim', 'Pending', '', '', '', '', '<unset>', '60m', 'Filesystem'],
  ],
  [
    'VolumeAttachment',
    resource('VolumeAttachment', 'storage.k8s.io'),
    obj('csi-1234', {
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'worker-1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true },
    }),
    ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age'],
    ['csi-1234', 'ebs.csi.aws.com', 'pv-1', 'worker-1', true, '60m'],
  ],
  [
    'StorageClass default',
    resource('StorageClass', 'storage.k8s.io'),
    obj(
      'standard',
      { provisioner: 'rancher.io/local-path', volumeBindingMode: 'WaitForFirstConsumer' },
      { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    ),
    ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
    ['standard (default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', false, '60m'],
  ],
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

describe('built-in printers', () => {
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
