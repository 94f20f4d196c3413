import { describe, expect, it } from 'vitest';
import { acceptedPatchMediaTypes, patchTypeFromContentType, supportsStrategic } from './index.js';
import type { PatchTarget } from './schema.js';

describe('patchTypeFromContentType', () => {
  it.each([
    { contentType: 'application/json-patch+json', want: 'json' },
    { contentType: 'application/merge-patch+json', want: 'merge' },
    { contentType: 'application/strategic-merge-patch+json', want: 'strategic' },
    { contentType: 'application/apply-patch+yaml', want: 'apply' },
    { contentType: 'application/strategic-merge-patch+json; charset=utf-8', want: 'strategic' },
    { contentType: ' Application/Merge-Patch+JSON ;charset=UTF-8', want: 'merge' },
    { contentType: 'application/json', want: undefined },
    { contentType: 'application/yaml', want: undefined },
    { contentType: '', want: undefined },
    { contentType: undefined, want: undefined },
  ])('$contentType -> $want', ({ contentType, want }) => {
    expect(patchTypeFromContentType(contentType)).toBe(want);
  });
});

describe('supportsStrategic', () => {
  it.each<{ name: string; target: PatchTarget; want: boolean }>([
    { name: 'core Pod', target: { group: '', kind: 'Pod' }, want: true },
    { name: 'apps Deployment', target: { group: 'apps', kind: 'Deployment' }, want: true },
    {
      name: 'policy PodDisruptionBudget',
      target: { group: 'policy', kind: 'PodDisruptionBudget' },
      want: true,
    },
    {
      name: 'built-in kind outside the table',
      target: { group: 'rbac.authorization.k8s.io', kind: 'Role' },
      want: true,
    },
    { name: 'custom resource group', target: { group: 'palisade.io', kind: 'Fence' }, want: false },
    {
      name: 'CRD in a k8s.io subgroup',
      target: { group: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot' },
      want: false,
    },
    { name: 'aggregated API', target: { group: 'metrics.k8s.io', kind: 'PodMetrics' }, want: false },
    { name: 'resource flagged custom', target: { group: 'apps', kind: 'Widget', custom: true }, want: false },
  ])('$name', ({ target, want }) => {
    expect(supportsStrategic(target)).toBe(want);
  });

  it('lists the media types of the 415 answer in server order', () => {
    expect(acceptedPatchMediaTypes({ group: 'palisade.io', kind: 'Fence' })).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(acceptedPatchMediaTypes({ group: '', kind: 'Pod' })).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });
});
