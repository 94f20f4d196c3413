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
];

describe('storage printers', () => {
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
