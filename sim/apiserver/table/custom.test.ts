import { describe, expect, it } from 'vitest';
import type { PrinterColumn } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, ago, obj, resource } from './testutil.js';

const columns: PrinterColumn[] = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired members' },
  { name: 'Ratio', type: 'number', jsonPath: '.status.ratio', priority: 1 },
  { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Primary', type: 'string', jsonPath: '.status.members[0].name' },
  { name: 'Members', type: 'string', jsonPath: '.status.members' },
  { name: 'Last Backup', type: 'date', jsonPath: '.status.lastBackup' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const CLUSTERS = resource('PostgresCluster', 'db.example.com', { custom: true, printerColumns: columns });

const cluster = obj('pg-main', {
  apiVersion: 'db.example.com/v1',
  kind: 'PostgresCluster',
  spec: { replicas: 3.0, paused: false },
  status: {
    phase: 'Healthy',
    ratio: 0.75,
    conditions: [{ type: 'Ready', status: 'True' }],
    members: [{ name: 'pg-main-1' }, { name: 'pg-main-2' }],
    lastBackup: ago(5 * 3600),
  },
});

describe('custom resource printer', () => {
  it('prints NAME plus the declared columns', () => {
    const t = toTable(CLUSTERS, [cluster], { includeObject: 'None', resourceVersion: '5', now: NOW });
    expect(t.columnDefinitions[0]).toMatchObject({
      name: 'Name',
      type: 'string',
      format: 'name',
      priority: 0,
    });
    expect(t.columnDefinitions.slice(1, 4)).toEqual([
      {
        name: 'Phase',
        type: 'string',
        format: '',
        priority: 0,
        description: 'Custom resource definition column (in JSONPath format): .status.phase',
      },
      { name: 'Replicas', type: 'integer', format: '', priority: 0, description: 'Desired members' },
      {
        name: 'Ratio',
        type: 'number',
        format: '',
        priority: 1,
        description: 'Custom resource definition column (in JSONPath format): .status.ratio',
      },
    ]);
    expect(t.rows[0].cells).toEqual([
      'pg-main',
      'Healthy',
      3,
      0.75,
      false,
      'True',
      'pg-main-1',
      '[{"name":"pg-main-1"},{"name":"pg-main-2"}]',
      '5h',
      '60m',
    ]);
  });

  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['missing fields are null', { spec: {} }, [null, null, null, null, null, null, null, null]],
    [
      'mistyped values are null, bad dates <invalid>',
      { spec: { replicas: '3', paused: 'yes' }, status: { phase: 7, ratio: 'x', lastBackup: 'yesterday' } },
      ['7', null, null, null, null, null, null, '<invalid>'],
    ],
    [
      'empty date is <unknown>',
      { status: { lastBackup: '' } },
      [null, null, null, null, null, null, null, '<unknown>'],
    ],
  ])('%s', (_, body, cells) => {
    const t = toTable(CLUSTERS, [obj('x', body)], { includeObject: 'None', resourceVersion: '5', now: NOW });
    expect(t.rows[0].cells).toEqual(['x', ...cells, '60m']);
  });

  it('serves an Age column when the CRD declares none', () => {
    const r = resource('Widget', 'example.com', { custom: true });
    const t = toTable(r, [obj('w', {}, { creationTimestamp: ago(300) })], {
      includeObject: 'None',
      resourceVersion: '1',
      now: NOW,
    });
    expect(t.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(t.rows[0].cells).toEqual(['w', '5m']);
  });
});

describe('default table convertor', () => {
  it.each([
    ['CustomResourceDefinition', 'apiextensions.k8s.io'],
    ['ClusterRole', 'rbac.authorization.k8s.io'],
  ])('%s prints NAME and CREATED AT', (kind, group) => {
    const r = resource(kind, group, { namespaced: false });
    const t = toTable(r, [obj('widgets.example.com', {}, { creationTimestamp: '2024-04-30T08:15:00Z' })], {
      includeObject: 'None',
      resourceVersion: '1',
      now: NOW,
    });
    expect(t.columnDefinitions.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(t.rows[0].cells).toEqual(['widgets.example.com', '2024-04-30T08:15:00Z']);
  });

  it('normalises the timestamp to UTC seconds', () => {
    const r = resource('ClusterRole', 'rbac.authorization.k8s.io');
    const t = toTable(r, [obj('view', {}, { creationTimestamp: '2024-04-30T10:15:00.5+02:00' })], {
      includeObject: 'None',
      resourceVersion: '1',
      now: NOW,
    });
    expect(t.rows[0].cells[1]).toBe('2024-04-30T08:15:00Z');
  });
});
