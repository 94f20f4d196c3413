import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, ago, obj, resource } from './testutil.js';

function print(r: ResourceInfo, o: KubeObject) {
  const t = toTable(r, [o], { includeObject: 'None', resourceVersion: '1', now: NOW });
  return { headers: t.columnDefinitions.map((c) => c.name), cells: t.rows[0].cells };
}

// [case, resource, object, headers, cells]
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
];

describe('core/v1 printers', () => {
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
