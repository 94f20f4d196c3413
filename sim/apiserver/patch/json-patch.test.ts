import { describe, expect, it } from 'vitest';
import { applyPatch } from './index.js';
import { DEPLOYMENT, POD, at, deepFreeze, deployment, expectPatchError, pod } from './test-fixtures.js';

const json = (original: unknown, patch: unknown, target = POD) => applyPatch(original, patch, 'json', target);

describe('json patch (RFC 6902)', () => {
  it.each([
    {
      name: 'add a label',
      patch: [{ op: 'add', path: '/metadata/labels/version', value: 'v2' }],
      path: 'metadata.labels',
      want: { app: 'web', tier: 'frontend', version: 'v2' },
    },
    {
      name: 'add an annotation whose key contains a slash (~1 escape)',
      patch: [{ op: 'add', path: '/metadata/annotations/palisade.io~1protected', value: 'true' }],
      path: 'metadata.annotations',
      want: { 'prometheus.io/scrape': 'true', 'palisade.io/protected': 'true' },
    },
    {
      name: 'append a toleration with -',
      patch: [{ op: 'add', path: '/spec/tolerations/-', value: { key: 'gpu', operator: 'Exists' } }],
      path: 'spec.tolerations.1',
      want: { key: 'gpu', operator: 'Exists' },
    },
    {
      name: 'replace a container image by index',
      patch: [{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.26' }],
      path: 'spec.containers.0.image',
      want: 'nginx:1.26',
    },
    {
      name: 'remove the only finalizer',
      patch: [{ op: 'remove', path: '/metadata/finalizers/0' }],
      path: 'metadata.finalizers',
      want: [],
    },
    {
      name: 'move a label to an annotation',
      patch: [{ op: 'move', from: '/metadata/labels/tier', path: '/metadata/annotations/tier' }],
      path: 'metadata',
      want: expect.objectContaining({
        labels: { app: 'web' },
        annotations: { 'prometheus.io/scrape': 'true', tier: 'frontend' },
      }),
    },
    {
      name: 'copy the node name into a label',
      patch: [{ op: 'copy', from: '/spec/nodeName', path: '/metadata/labels/node' }],
      path: 'metadata.labels.node',
      want: 'node-a',
    },
    {
      name: 'test resourceVersion then replace (optimistic concurrency)',
      patch: [
        { op: 'test', path: '/metadata/resourceVersion', value: '4711' },
        { op: 'replace', path: '/spec/nodeName', value: 'node-b' },
      ],
      path: 'spec.nodeName',
      want: 'node-b',
    },
  ])('$name', ({ patch, path, want }) => {
    expect(at(json(pod(), patch), path)).toEqual(want);
  });

  it.each([
    {
      name: 'failing test op',
      patch: [{ op: 'test', path: '/metadata/resourceVersion', value: '1' }],
      code: 422 as const,
      message: /testing value \/metadata\/resourceVersion failed/,
    },
    {
      name: 'remove of a missing label',
      patch: [{ op: 'remove', path: '/metadata/labels/missing' }],
      code: 422 as const,
      message: /remove operation does not apply: doc is missing path: \/metadata\/labels\/missing/,
    },
    {
      name: 'replace of a missing field',
      patch: [{ op: 'replace', path: '/spec/priorityClassName', value: 'high' }],
      code: 422 as const,
      message: /replace operation does not apply/,
    },
    {
      name: 'add under a missing parent',
      patch: [{ op: 'add', path: '/spec/securityContext/runAsUser', value: 1000 }],
      code: 422 as const,
      message: /add operation does not apply/,
    },
    {
      name: 'move from a missing path',
      patch: [{ op: 'move', from: '/metadata/labels/nope', path: '/metadata/labels/x' }],
      code: 422 as const,
      message: /move operation does not apply: doc is missing from path: \/metadata\/labels\/nope/,
    },
    {
      name: 'non-numeric list index',
      patch: [{ op: 'replace', path: '/spec/containers/app/image', value: 'x' }],
      code: 422 as const,
      message: /replace operation does not apply/,
    },
    {
      name: 'unknown op',
      patch: [{ op: 'merge', path: '/metadata', value: {} }],
      code: 400 as const,
      message: /invalid JSON patch operation 0/,
    },
    {
      name: 'add without value',
      patch: [{ op: 'add', path: '/metadata/labels/x' }],
      code: 400 as const,
      message: /value/,
    },
    {
      name: 'path not starting with /',
      patch: [{ op: 'remove', path: 'metadata/labels' }],
      code: 400 as const,
      message: /path/,
    },
    {
      name: 'a merge-patch object instead of a list',
      patch: { metadata: { labels: { a: 'b' } } },
      code: 400 as const,
      message: /cannot unmarshal object into Go value of type jsonpatch.Patch/,
    },
  ])('rejects $name', ({ patch, code, message }) => {
    expectPatchError(() => json(pod(), patch), code, message);
  });

  it('validates every operation before applying any', () => {
    const patch = [
      { op: 'replace', path: '/spec/replicas', value: 5 },
      { op: 'bogus', path: '/spec' },
    ];
    expectPatchError(() => json(deployment(), patch, DEPLOYMENT), 400, /operation 1/);
  });

  it('never mutates its inputs nor shares values with the patch', () => {
    const original = deepFreeze(pod());
    const patch = deepFreeze([{ op: 'add', path: '/metadata/labels', value: { only: 'this' } }]);
    const result = json(original, patch) as { metadata: { labels: Record<string, string> } };
    expect(result.metadata.labels).toEqual({ only: 'this' });
    result.metadata.labels.only = 'changed';
    expect(patch[0].value).toEqual({ only: 'this' });
    expect(at(original, 'metadata.labels')).toEqual({ app: 'web', tier: 'frontend' });
  });
});
