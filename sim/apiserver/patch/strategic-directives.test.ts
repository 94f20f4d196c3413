// Strategic merge patch directives: $patch, $retainKeys, $deleteFromPrimitiveList and
// $setElementOrder, in the shapes kubectl apply / edit / patch send them.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { applyPatch } from './index.js';
import type { PatchTarget } from './schema.js';
import { DEPLOYMENT, POD, at, deployment, expectPatchError, pod } from './test-fixtures.js';

interface Row {
  name: string;
  target?: PatchTarget;
  original?: () => JsonObject;
  patch: unknown;
  path: string;
  want: unknown;
}

interface ErrorRow {
  name: string;
  target?: PatchTarget;
  original?: () => JsonObject;
  patch: unknown;
  code?: 400 | 422;
  message: RegExp;
}

const strategic = (original: unknown, patch: unknown, target: PatchTarget = POD) =>
  applyPatch(original, patch, 'strategic', target);

const run = (rows: Row[]) =>
  it.each(rows)('$name', ({ target, original = pod, patch, path, want }) => {
    expect(at(strategic(original(), patch, target), path)).toEqual(want);
  });

const runErrors = (rows: ErrorRow[]) =>
  it.each(rows)('rejects $name', ({ target, original = pod, patch, code = 400, message }) => {
    expectPatchError(() => strategic(original(), patch, target), code, message);
  });

const names = (list: unknown) => (list as { name: string }[]).map((item) => item.name);

describe('$patch in a map', () => {
  run([
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

  runErrors([
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
  run([
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

  runErrors([
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

describe('$retainKeys', () => {
  run([
    {
      name: 'kubectl apply switching a deployment to Recreate clears rollingUpdate',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      path: 'spec.strategy',
      want: { type: 'Recreate' },
    },
    {
      name: 'a volume switched from emptyDir to hostPath loses emptyDir',
      target: DEPLOYMENT,
      original: deployment,
      patch: {
        spec: {
          template: {
            spec: {
              '$setElementOrder/volumes': [{ name: 'data' }],
              volumes: [{ $retainKeys: ['hostPath', 'name'], hostPath: { path: '/mnt/data' }, name: 'data' }],
            },
          },
        },
      },
      path: 'spec.template.spec.volumes',
      want: [{ name: 'data', hostPath: { path: '/mnt/data' } }],
    },
    {
      name: 'null fields need not be listed',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      path: 'spec.strategy',
      want: { type: 'Recreate' },
    },
  ]);

  runErrors([
    {
      name: '$retainKeys that is not a list',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { strategy: { $retainKeys: 'type', type: 'Recreate' } } },
      message: /invalid patch format of retainKeys/,
    },
    {
      name: 'a patched field missing from $retainKeys',
      target: DEPLOYMENT,
      original: deployment,
      patch: {
        spec: { strategy: { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
      },
      message: /invalid patch format of retainKeys: field "rollingUpdate" is not in \$retainKeys/,
    },
  ]);
});

describe('$deleteFromPrimitiveList', () => {
  run([
    {
      name: 'removes a finalizer (kubectl apply / a controller releasing its finalizer)',
      original: () => ({ metadata: { finalizers: ['kubernetes.io/pvc-protection', 'palisade.io/protect'] } }),
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['palisade.io/protect'] } },
      path: 'metadata.finalizers',
      want: ['kubernetes.io/pvc-protection'],
    },
    {
      name: 'removes every duplicate and ignores values that are absent',
      original: () => ({ metadata: { finalizers: ['a', 'b', 'a', 'c'] } }),
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'zzz'] } },
      path: 'metadata.finalizers',
      want: ['b', 'c'],
    },
    {
      name: 'adds and deletes in one patch',
      original: () => ({ metadata: { finalizers: ['a', 'b'] } }),
      patch: { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] } },
      path: 'metadata.finalizers',
      want: ['c', 'b'],
    },
    {
      name: 'does not create a missing list',
      original: () => ({ metadata: { name: 'x' } }),
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      path: 'metadata',
      want: { name: 'x' },
    },
    {
      name: 'also works on a list without merge strategy',
      target: { group: '', kind: 'PersistentVolume' },
      original: () => ({ spec: { mountOptions: ['ro', 'soft', 'noatime'] } }),
      patch: { spec: { '$deleteFromPrimitiveList/mountOptions': ['soft'] } },
      path: 'spec.mountOptions',
      want: ['ro', 'noatime'],
    },
  ]);

  runErrors([
    {
      name: 'a value that is not a list',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'palisade.io/protect' } },
      message: /invalid patch format of primitive list/,
    },
    {
      name: 'objects in the deletion list',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': [{ name: 'x' }] } },
      message: /invalid patch format of primitive list/,
    },
    {
      name: 'a key without the /<field> part',
      patch: { metadata: { $deleteFromPrimitiveList: ['x'] } },
      message: /invalid patch format of primitive list: malformed directive key/,
    },
  ]);
});

describe('$setElementOrder', () => {
  it("accepts kubectl apply's three-way patch and keeps the annotation", () => {
    const live = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a', image: 'nginx:1' }] },
    };
    const lastApplied =
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"image":"nginx:2","name":"a"}]}}';
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
      spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ image: 'nginx:2', name: 'a' }] },
    };
    expect(strategic(live, patch)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      },
      spec: { containers: [{ name: 'a', image: 'nginx:2' }] },
    });
  });

  it.each([
    {
      name: 'kubectl apply adding a container in the middle',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }, { name: 'metrics' }, { name: 'sidecar' }],
          containers: [{ image: 'prom/exporter:1', name: 'metrics' }],
        },
      },
      want: ['app', 'metrics', 'sidecar'],
    },
    {
      name: 'kubectl apply removing a container',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }],
          containers: [{ $patch: 'delete', name: 'sidecar' }],
        },
      },
      want: ['app'],
    },
    {
      name: 'reordering only',
      patch: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } },
      want: ['sidecar', 'app'],
    },
    {
      name: 'names missing from the live list are ignored',
      patch: {
        spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'ghost' }, { name: 'app' }] },
      },
      want: ['sidecar', 'app'],
    },
    {
      name: 'a live-only container keeps its place after the named ones',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }, { name: 'web' }],
          containers: [{ name: 'web', image: 'x' }],
        },
      },
      want: ['app', 'web', 'sidecar'],
    },
  ])('orders containers: $name', ({ patch, want }) => {
    expect(names(at(strategic(pod(), patch), 'spec.containers'))).toEqual(want);
  });

  run([
    {
      name: 'kubectl edit: nested order and env deletion inside a container item',
      target: DEPLOYMENT,
      original: () => {
        const d = deployment();
        (at(d, 'spec.template.spec.containers.0') as JsonObject).env = [
          { name: 'MODE', value: 'prod' },
          { name: 'DEBUG', value: '1' },
        ];
        return d;
      },
      patch: {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
              containers: [
                {
                  '$setElementOrder/env': [{ name: 'MODE' }],
                  env: [{ $patch: 'delete', name: 'DEBUG' }],
                  image: 'nginx:1.26',
                  name: 'app',
                },
              ],
            },
          },
        },
      },
      path: 'spec.template.spec.containers',
      want: [
        { name: 'app', image: 'nginx:1.26', env: [{ name: 'MODE', value: 'prod' }] },
        { name: 'sidecar', image: 'envoyproxy/envoy:v1.29' },
      ],
    },
    {
      name: 'finalizers ordered and trimmed by kubectl apply',
      original: () => ({ metadata: { finalizers: ['a.io/x', 'b.io/y', 'c.io/z'] } }),
      patch: {
        metadata: {
          '$setElementOrder/finalizers': ['c.io/z', 'a.io/x'],
          '$deleteFromPrimitiveList/finalizers': ['b.io/y'],
        },
      },
      path: 'metadata.finalizers',
      want: ['c.io/z', 'a.io/x'],
    },
    {
      name: 'a list the object lacks is created from the patch, directives stripped',
      original: () => ({ spec: { containers: [{ name: 'app' }] } }),
      patch: {
        spec: {
          '$setElementOrder/initContainers': [{ name: 'first' }, { name: 'second' }],
          initContainers: [
            { name: 'first', image: 'a', $retainKeys: ['image', 'name'] },
            { name: 'second', image: 'b' },
          ],
        },
      },
      path: 'spec.initContainers',
      want: [
        { name: 'first', image: 'a' },
        { name: 'second', image: 'b' },
      ],
    },
    {
      name: 'on a list without merge strategy the patch list simply replaces it',
      patch: {
        spec: {
          '$setElementOrder/tolerations': [{ key: 'gpu' }],
          tolerations: [{ key: 'gpu', operator: 'Exists' }],
        },
      },
      path: 'spec.tolerations',
      want: [{ key: 'gpu', operator: 'Exists' }],
    },
  ]);

  runErrors([
    {
      name: 'an order contradicting the patch list',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
          containers: [
            { name: 'sidecar', image: 'x' },
            { name: 'app', image: 'y' },
          ],
        },
      },
      message: /doesn't match \$setElementOrder list/,
    },
    {
      name: 'a patch item the order does not name',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }],
          containers: [{ name: 'other', image: 'x' }],
        },
      },
      message: /doesn't match/,
    },
    {
      name: 'an order that is not a list',
      patch: { spec: { '$setElementOrder/containers': { name: 'app' } } },
      message: /invalid patch format of setElementOrder list/,
    },
    {
      name: 'order items without the merge key',
      patch: { spec: { '$setElementOrder/containers': [{ image: 'nginx' }] } },
      message: /does not contain declared merge key: name/,
    },
    {
      name: 'objects in the order of a list of scalars',
      patch: { metadata: { '$setElementOrder/finalizers': [{ name: 'x' }] } },
      message: /invalid patch format of setElementOrder list/,
    },
    {
      name: 'a key without the /<field> part',
      patch: { spec: { $setElementOrder: [{ name: 'app' }] } },
      message: /invalid patch format of setElementOrder list: malformed directive key/,
    },
    {
      name: 'a null list next to its order',
      patch: { spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: null } },
      message: /expected a list for containers/,
    },
  ]);
});
