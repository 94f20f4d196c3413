// `$patch` directives of strategic merge patch, in maps and in list items.
import { describe, expect, it } from 'vitest';
import {
  DEPLOYMENT,
  at,
  deployment,
  pod,
  strategic,
  strategicCases,
  strategicErrorCases,
} from './test-fixtures.js';

describe('$patch in a map', () => {
  strategicCases([
    {
      name: 'replace: the map becomes exactly the patch',
      patch: { metadata: { labels: { $patch: 'replace', env: 'prod' } } },
      path: 'metadata.labels',
      want: { env: 'prod' },
    },
    {
      name: 'replace: nested maps are taken literally too',
      patch: {
        spec: { containers: [{ name: 'app', resources: { $patch: 'replace', limits: { cpu: '1' } } }] },
      },
      path: 'spec.containers.0.resources',
      want: { limits: { cpu: '1' } },
    },
    {
      name: 'delete: the map is emptied (the server keeps {})',
      patch: { spec: { nodeSelector: { $patch: 'delete' } } },
      path: 'spec.nodeSelector',
      want: {},
    },
    {
      name: 'delete on a deployment rollingUpdate',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { strategy: { type: 'Recreate', rollingUpdate: { $patch: 'delete' } } } },
      path: 'spec.strategy',
      want: { type: 'Recreate', rollingUpdate: {} },
    },
    {
      name: 'a map carrying $patch is dropped where the live object has no such field',
      original: () => ({ metadata: { name: 'bare' } }),
      patch: { metadata: { labels: { $patch: 'replace', a: 'b' } } },
      path: 'metadata',
      want: { name: 'bare' },
    },
  ]);

  it('replace at the top level swaps the whole object', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: { a: 'b' } },
      data: { x: '1' },
    };
    const patch = {
      $patch: 'replace',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { y: '2' },
    };
    const target = { group: '', kind: 'ConfigMap' };
    expect(strategic(configMap, patch, target)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { y: '2' },
    });
  });

  strategicErrorCases([
    {
      name: '$patch: merge (a struct tag only, never valid in a patch)',
      patch: { metadata: { labels: { $patch: 'merge', a: 'b' } } },
      message: /unknown patch type: "merge" in map/,
    },
    {
      name: 'an unknown $patch value',
      patch: { spec: { $patch: 'remove' } },
      message: /unknown patch type: "remove"/,
    },
    {
      name: 'a non-string $patch value',
      patch: { spec: { $patch: true } },
      message: /unknown patch type: true/,
    },
  ]);
});

describe('$patch in a list item', () => {
  strategicCases([
    {
      name: 'delete removes a container by name',
      patch: { spec: { containers: [{ $patch: 'delete', name: 'sidecar' }] } },
      path: 'spec.containers',
      want: [expect.objectContaining({ name: 'app', image: 'nginx:1.25' })],
    },
    {
      name: 'delete and update in the same list',
      patch: {
        spec: {
          containers: [
            { name: 'app', image: 'nginx:1.26' },
            { $patch: 'delete', name: 'sidecar' },
          ],
        },
      },
      path: 'spec.containers.0.image',
      want: 'nginx:1.26',
    },
    {
      name: 'delete of a name that is not there changes nothing',
      patch: { spec: { containers: [{ $patch: 'delete', name: 'ghost' }] } },
      path: 'spec.containers',
      want: at(pod(), 'spec.containers'),
    },
    {
      name: 'delete removes every item with that key',
      original: () => ({
        spec: {
          containers: [
            {
              name: 'a',
              env: [
                { name: 'X', value: '1' },
                { name: 'X', value: '2' },
                { name: 'Y', value: 'y' },
              ],
            },
          ],
        },
      }),
      patch: { spec: { containers: [{ name: 'a', env: [{ name: 'X', $patch: 'delete' }] }] } },
      path: 'spec.containers.0.env',
      want: [{ name: 'Y', value: 'y' }],
    },
    {
      name: 'delete a status condition by type',
      patch: { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } },
      path: 'status.conditions',
      want: [{ type: 'PodScheduled', status: 'True' }],
    },
    {
      name: 'replace: the list becomes exactly the other items',
      patch: { spec: { containers: [{ name: 'solo', image: 'busybox' }, { $patch: 'replace' }] } },
      path: 'spec.containers',
      want: [{ name: 'solo', image: 'busybox' }],
    },
    {
      name: 'replace alone empties the list',
      patch: { spec: { imagePullSecrets: [{ $patch: 'replace' }] } },
      path: 'spec.imagePullSecrets',
      want: [],
    },
    {
      name: 'directive items are dropped from a list the object did not have',
      original: () => ({ spec: { containers: [{ name: 'app' }] } }),
      patch: {
        spec: {
          initContainers: [
            { name: 'init', image: 'busybox' },
            { name: 'old', $patch: 'delete' },
          ],
        },
      },
      path: 'spec.initContainers',
      want: [{ name: 'init', image: 'busybox' }],
    },
  ]);

  strategicErrorCases([
    {
      name: '$patch: merge on a list item',
      patch: { spec: { containers: [{ name: 'app', $patch: 'merge' }] } },
      message: /merging lists cannot yet be specified in the patch/,
    },
    {
      name: 'an unknown $patch on a list item',
      patch: { spec: { containers: [{ name: 'app', $patch: 'drop' }] } },
      message: /unknown patch type: "drop"/,
    },
    {
      name: 'delete without the merge key',
      patch: { spec: { containers: [{ $patch: 'delete', image: 'envoyproxy/envoy:v1.29' }] } },
      message: /does not contain declared merge key: name/,
    },
    {
      name: 'a merging-list item without the merge key',
      patch: { spec: { containers: [{ image: 'nginx:1.26' }] } },
      message: /does not contain declared merge key: name/,
    },
    {
      name: 'a list of lists in a merging list',
      patch: { metadata: { finalizers: [['a']] } },
      code: 422,
      message: /lists of lists are not supported/,
    },
    {
      name: 'mixed element types in a merging list',
      patch: { metadata: { finalizers: [7] } },
      message: /list element types are not identical/,
    },
  ]);
});
