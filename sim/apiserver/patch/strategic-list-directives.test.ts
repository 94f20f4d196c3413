// The parallel-list directives of strategic merge patch ($retainKeys,
// $deleteFromPrimitiveList, $setElementOrder) in the shapes kubectl apply and edit send.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import {
  DEPLOYMENT,
  at,
  deployment,
  pod,
  strategic,
  strategicCases,
  strategicErrorCases,
} from './test-fixtures.js';

const names = (list: unknown) => (list as { name: string }[]).map((item) => item.name);

describe('$retainKeys', () => {
  strategicCases([
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

  strategicErrorCases([
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
  strategicCases([
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

  strategicErrorCases([
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

  strategicCases([
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

  strategicErrorCases([
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
