import { describe, expect, it } from 'vitest';
import { toTable } from './index.js';
import { NOW, obj, resource } from './testutil.js';

const LEASES = resource('Lease', 'coordination.k8s.io');
const lease = obj(
  'worker-1',
  { spec: { holderIdentity: 'worker-1' } },
  { namespace: 'kube-node-lease', uid: 'u-1', resourceVersion: '42', labels: { a: 'b' } },
);

describe('toTable envelope', () => {
  it('builds a meta.k8s.io/v1 Table with list metadata', () => {
    const t = toTable(LEASES, [lease], {
      includeObject: 'None',
      resourceVersion: '100',
      continueToken: 'abc',
      now: NOW,
    });
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.k8s.io/v1');
    expect(t.metadata).toEqual({ resourceVersion: '100', continue: 'abc' });
    expect(t.rows).toEqual([{ cells: ['worker-1', 'worker-1', '60m'] }]);
    expect(JSON.parse(JSON.stringify(t)).columnDefinitions[0]).toEqual({
      name: 'Name',
      type: 'string',
      format: 'name',
      description: expect.stringContaining('Name must be unique within a namespace.'),
      priority: 0,
    });
  });

  it('omits empty list metadata and keeps an empty rows array', () => {
    const t = toTable(LEASES, [], { includeObject: 'Metadata', resourceVersion: '', now: NOW });
    expect(t.metadata).toEqual({});
    expect(t.rows).toEqual([]);
  });

  it.each([
    ['None', undefined],
    ['Metadata', { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: lease.metadata }],
    [
      'Object',
      {
        kind: 'Lease',
        apiVersion: 'coordination.k8s.io/v1',
        metadata: lease.metadata,
        spec: { holderIdentity: 'worker-1' },
      },
    ],
  ] as const)('includeObject=%s', (include, expected) => {
    const [row] = toTable(LEASES, [lease], { includeObject: include, resourceVersion: '1', now: NOW }).rows;
    expect(row.object).toEqual(expected);
    expect('object' in row).toBe(expected !== undefined);
  });

  it('keeps an object that already carries its type', () => {
    const typed = { ...lease, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
    const [row] = toTable(LEASES, [typed], { includeObject: 'Object', resourceVersion: '1', now: NOW }).rows;
    expect(row.object).toEqual(typed);
  });

  it('drops column definitions when asked for no headers (watch events after the first)', () => {
    const t = toTable(LEASES, [lease], {
      includeObject: 'None',
      resourceVersion: '1',
      noHeaders: true,
      now: NOW,
    });
    expect(t.columnDefinitions).toEqual([]);
    expect(t.rows[0].cells).toHaveLength(3);
  });

  it('defaults the clock to now', () => {
    const fresh = obj('x', {}, { creationTimestamp: new Date().toISOString() });
    const t = toTable(LEASES, [fresh], { includeObject: 'None', resourceVersion: '1' });
    expect(t.rows[0].cells[2]).toMatch(/^\d+s$/);
  });
});
