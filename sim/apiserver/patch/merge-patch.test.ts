import { describe, expect, it } from 'vitest';
import { applyPatch } from './index.js';
import { DEPLOYMENT, POD, at, deepFreeze, deployment, expectPatchError, pod } from './test-fixtures.js';

const merge = (original: unknown, patch: unknown) => applyPatch(original, patch, 'merge', POD);

describe('json merge patch (RFC 7386)', () => {
  it.each([
    {
      name: 'adds a label next to the others',
      patch: { metadata: { labels: { version: 'v2' } } },
      path: 'metadata.labels',
      want: { app: 'web', tier: 'frontend', version: 'v2' },
    },
    {
      name: 'null removes a label (kubectl label app-)',
      patch: { metadata: { labels: { app: null } } },
      path: 'metadata.labels',
      want: { tier: 'frontend' },
    },
    {
      name: 'null on a missing key is a no-op',
      patch: { metadata: { labels: { ghost: null } } },
      path: 'metadata.labels',
      want: { app: 'web', tier: 'frontend' },
    },
    {
      name: 'nested maps merge key by key',
      patch: { spec: { nodeSelector: { disktype: 'ssd' } } },
      path: 'spec.nodeSelector',
      want: { 'kubernetes.io/os': 'linux', disktype: 'ssd' },
    },
    {
      name: 'lists are replaced whole, even merge-keyed ones',
      patch: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } },
      path: 'spec.containers',
      want: [{ name: 'app', image: 'nginx:1.26' }],
    },
    {
      name: 'finalizers are replaced, not unioned',
      patch: { metadata: { finalizers: ['kubernetes.io/pvc-protection'] } },
      path: 'metadata.finalizers',
      want: ['kubernetes.io/pvc-protection'],
    },
    {
      name: 'a new map has its nulls pruned',
      patch: { spec: { securityContext: { runAsUser: 1000, fsGroup: null } } },
      path: 'spec.securityContext',
      want: { runAsUser: 1000 },
    },
    {
      // evanphx/json-patch v4, as kube-apiserver merges: a CR status cell's `at: null` is not stored
      name: 'a list has the nulls of its items pruned, null items dropped',
      patch: {
        spec: { containers: [{ name: 'a', image: null, ports: [null, { containerPort: 1 }] }, null] },
      },
      path: 'spec.containers',
      want: [{ name: 'a', ports: [{ containerPort: 1 }] }],
    },
    {
      name: 'a list replacing a map is taken as it is',
      patch: { metadata: { labels: [{ a: null }] } },
      path: 'metadata.labels',
      want: [{ a: null }],
    },
    {
      name: 'a scalar replaces a map',
      patch: { spec: { nodeSelector: 'none' } },
      path: 'spec.nodeSelector',
      want: 'none',
    },
    {
      name: 'null removes a whole subtree',
      patch: { status: null },
      path: 'status',
      want: undefined,
    },
  ])('$name', ({ patch, path, want }) => {
    expect(at(merge(pod(), patch), path)).toEqual(want);
  });

  it('scales a deployment without touching the template', () => {
    const result = applyPatch(deployment(), { spec: { replicas: 5 } }, 'merge', DEPLOYMENT);
    expect(at(result, 'spec.replicas')).toBe(5);
    expect(at(result, 'spec.template')).toEqual(at(deployment(), 'spec.template'));
  });

  it.each([
    { name: 'a list', patch: [{ op: 'add', path: '/a', value: 1 }], type: 'array' },
    { name: 'a string', patch: 'labels', type: 'string' },
    { name: 'null', patch: null, type: 'null' },
  ])('rejects $name as the patch document', ({ patch, type }) => {
    expectPatchError(() => merge(pod(), patch), 400, new RegExp(`cannot unmarshal ${type} into Go value`));
  });

  it('never mutates its inputs nor shares values with the patch', () => {
    const original = deepFreeze(pod());
    const patch = deepFreeze({ metadata: { annotations: { note: { nested: true } } } });
    const result = merge(original, patch) as { metadata: { annotations: { note: { nested: boolean } } } };
    result.metadata.annotations.note.nested = false;
    expect(patch.metadata.annotations.note.nested).toBe(true);
    expect(at(original, 'metadata.annotations')).toEqual({ 'prometheus.io/scrape': 'true' });
  });
});
