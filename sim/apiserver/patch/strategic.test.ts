// Strategic merge patch over metadata and Pods: which lists merge, by which key, and
// which are replaced. Other kinds are in strategic-kinds.test.ts, directives in
// strategic-patch-directive.test.ts and strategic-list-directives.test.ts.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { POD, at, deepFreeze, expectPatchError, pod, strategic, strategicCases } from './test-fixtures.js';

describe('strategic merge patch: metadata (every kind)', () => {
  strategicCases([
    {
      name: 'kubectl label: null removes one label, others stay',
      target: POD,
      original: pod,
      patch: { metadata: { labels: { tier: null, version: 'v2' } } },
      path: 'metadata.labels',
      want: { app: 'web', version: 'v2' },
    },
    {
      name: 'kubectl annotate --overwrite',
      target: POD,
      original: pod,
      patch: { metadata: { annotations: { 'prometheus.io/scrape': 'false' } } },
      path: 'metadata.annotations',
      want: { 'prometheus.io/scrape': 'false' },
    },
    {
      name: 'finalizers merge as a set: a new one goes first',
      target: { group: '', kind: 'PersistentVolumeClaim' },
      original: () => ({ metadata: { name: 'data', finalizers: ['kubernetes.io/pvc-protection'] } }),
      patch: { metadata: { finalizers: ['palisade.io/protect'] } },
      path: 'metadata.finalizers',
      want: ['palisade.io/protect', 'kubernetes.io/pvc-protection'],
    },
    {
      name: 'finalizers: adding an existing one does not duplicate it',
      target: POD,
      original: pod,
      patch: { metadata: { finalizers: ['palisade.io/protect'] } },
      path: 'metadata.finalizers',
      want: ['palisade.io/protect'],
    },
    {
      name: 'ownerReferences merge by uid',
      target: { group: '', kind: 'ConfigMap' },
      original: () => ({
        metadata: {
          name: 'web-config',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-1' }],
        },
      }),
      patch: { metadata: { ownerReferences: [{ uid: 'dep-1', blockOwnerDeletion: true }] } },
      path: 'metadata.ownerReferences',
      want: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-1', blockOwnerDeletion: true },
      ],
    },
    {
      name: 'ownerReferences: a new uid is added, not replacing',
      target: POD,
      original: pod,
      patch: {
        metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-1' }] },
      },
      path: 'metadata.ownerReferences.1.uid',
      want: 'rs-uid-1',
    },
  ]);
});

describe('strategic merge patch: Pod', () => {
  strategicCases([
    {
      name: 'containers merge by name: one image changes, the sidecar stays',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'sidecar', image: 'envoyproxy/envoy:v1.30' }] } },
      path: 'spec.containers',
      want: [
        expect.objectContaining({ name: 'app', image: 'nginx:1.25' }),
        { name: 'sidecar', image: 'envoyproxy/envoy:v1.30' },
      ],
    },
    {
      name: 'a container the pod lacks is added in front, as the server does',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'debug', image: 'busybox' }] } },
      path: 'spec.containers',
      want: [
        { name: 'debug', image: 'busybox' },
        expect.objectContaining({ name: 'app' }),
        expect.objectContaining({ name: 'sidecar' }),
      ],
    },
    {
      name: 'env merges by name inside the container',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'app', env: [{ name: 'LOG_LEVEL', value: 'debug' }] }] } },
      path: 'spec.containers.0.env',
      want: [
        { name: 'MODE', value: 'prod' },
        { name: 'LOG_LEVEL', value: 'debug' },
      ],
    },
    {
      name: 'env: a new variable is added, existing ones kept',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'app', env: [{ name: 'REGION', value: 'eu' }] }] } },
      path: 'spec.containers.0.env',
      want: [
        { name: 'REGION', value: 'eu' },
        { name: 'MODE', value: 'prod' },
        { name: 'LOG_LEVEL', value: 'info' },
      ],
    },
    {
      name: 'env: null inside an item removes that field only',
      target: POD,
      original: pod,
      patch: {
        spec: {
          containers: [
            {
              name: 'app',
              env: [{ name: 'MODE', value: null, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            },
          ],
        },
      },
      path: 'spec.containers.0.env.0',
      want: { name: 'MODE', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    },
    {
      name: 'ports merge by containerPort',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'tls' }] }] } },
      path: 'spec.containers.0.ports',
      want: [
        { name: 'http', containerPort: 80, protocol: 'TCP' },
        { name: 'tls', containerPort: 443, protocol: 'TCP' },
      ],
    },
    {
      name: 'volumeMounts merge by mountPath',
      target: POD,
      original: pod,
      patch: {
        spec: { containers: [{ name: 'app', volumeMounts: [{ mountPath: '/etc/app', readOnly: false }] }] },
      },
      path: 'spec.containers.0.volumeMounts',
      want: [
        { name: 'data', mountPath: '/data' },
        { name: 'config', mountPath: '/etc/app', readOnly: false },
      ],
    },
    {
      name: 'resources limits merge as maps',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'app', resources: { limits: { memory: '512Mi' } } }] } },
      path: 'spec.containers.0.resources',
      want: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m' } },
    },
    {
      name: 'initContainers merge by name',
      target: POD,
      original: pod,
      patch: { spec: { initContainers: [{ name: 'migrate', image: 'shop/migrate:4' }] } },
      path: 'spec.initContainers',
      want: [{ name: 'migrate', image: 'shop/migrate:4' }],
    },
    {
      name: 'ephemeralContainers merge by name (kubectl debug)',
      target: POD,
      original: () => ({
        ...pod(),
        spec: {
          ...(pod().spec as JsonObject),
          ephemeralContainers: [{ name: 'debugger-1', image: 'busybox' }],
        },
      }),
      patch: {
        spec: { ephemeralContainers: [{ name: 'debugger-2', image: 'busybox', targetContainerName: 'app' }] },
      },
      path: 'spec.ephemeralContainers',
      want: [
        { name: 'debugger-2', image: 'busybox', targetContainerName: 'app' },
        { name: 'debugger-1', image: 'busybox' },
      ],
    },
    {
      name: 'volumes merge by name',
      target: POD,
      original: pod,
      patch: { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { readOnly: true } }] } },
      path: 'spec.volumes',
      want: [
        { name: 'data', persistentVolumeClaim: { claimName: 'web-data', readOnly: true } },
        { name: 'config', configMap: { name: 'web-config' } },
      ],
    },
    {
      name: 'imagePullSecrets merge by name',
      target: POD,
      original: pod,
      patch: { spec: { imagePullSecrets: [{ name: 'ghcr' }] } },
      path: 'spec.imagePullSecrets',
      want: [{ name: 'ghcr' }, { name: 'regcred' }],
    },
    {
      name: 'hostAliases merge by ip; their hostnames list is replaced',
      target: POD,
      original: pod,
      patch: { spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['db'] }] } },
      path: 'spec.hostAliases',
      want: [{ ip: '10.0.0.1', hostnames: ['db'] }],
    },
    {
      name: 'topologySpreadConstraints merge by topologyKey',
      target: POD,
      original: pod,
      patch: {
        spec: { topologySpreadConstraints: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 2 }] },
      },
      path: 'spec.topologySpreadConstraints',
      want: [{ maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' }],
    },
    {
      name: 'tolerations have no strategy: replaced whole',
      target: POD,
      original: pod,
      patch: {
        spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
      },
      path: 'spec.tolerations',
      want: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    },
    {
      name: 'container args have no strategy: replaced whole',
      target: POD,
      original: () => ({ spec: { containers: [{ name: 'app', args: ['--port=80', '--verbose'] }] } }),
      patch: { spec: { containers: [{ name: 'app', args: ['--port=8080'] }] } },
      path: 'spec.containers.0.args',
      want: ['--port=8080'],
    },
    {
      name: 'nodeSelector merges as a map',
      target: POD,
      original: pod,
      patch: { spec: { nodeSelector: { disktype: 'ssd' } } },
      path: 'spec.nodeSelector',
      want: { 'kubernetes.io/os': 'linux', disktype: 'ssd' },
    },
    {
      name: 'status conditions merge by type',
      target: POD,
      original: pod,
      patch: { status: { conditions: [{ type: 'Ready', status: 'True', reason: null }] } },
      path: 'status.conditions',
      want: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
    },
    {
      name: 'status podIPs merge by ip',
      target: POD,
      original: pod,
      patch: { status: { podIPs: [{ ip: 'fd00::7' }] } },
      path: 'status.podIPs',
      want: [{ ip: 'fd00::7' }, { ip: '10.244.1.7' }],
    },
    {
      name: 'status containerStatuses have no strategy: replaced whole',
      target: POD,
      original: pod,
      patch: { status: { containerStatuses: [{ name: 'app', ready: true, restartCount: 0 }] } },
      path: 'status.containerStatuses',
      want: [{ name: 'app', ready: true, restartCount: 0 }],
    },
  ]);
});

describe('strategic merge patch: values without a merge', () => {
  strategicCases([
    {
      name: 'a new field drops the nulls inside it',
      target: POD,
      original: pod,
      patch: { spec: { securityContext: { runAsUser: 1000, fsGroup: null } } },
      path: 'spec.securityContext',
      want: { runAsUser: 1000 },
    },
    {
      name: 'an appended list item drops its nulls',
      target: POD,
      original: pod,
      patch: { spec: { containers: [{ name: 'debug', image: 'busybox', resources: null }] } },
      path: 'spec.containers.0',
      want: { name: 'debug', image: 'busybox' },
    },
    {
      name: 'a value of another JSON type replaces the old one',
      target: POD,
      original: pod,
      patch: { spec: { nodeSelector: 'none' } },
      path: 'spec.nodeSelector',
      want: 'none',
    },
    {
      name: 'null removes a whole subtree',
      target: POD,
      original: pod,
      patch: { status: null },
      path: '',
      want: expect.not.objectContaining({ status: expect.anything() }),
    },
  ]);

  it('keeps a "__proto__" data key as a plain key', () => {
    const original = JSON.parse('{"data":{"__proto__":"x","a":"1"}}');
    const patch = JSON.parse('{"data":{"__proto__":"y"}}');
    const result = strategic(original, patch, { group: '', kind: 'ConfigMap' }) as { data: object };
    expect(Object.getPrototypeOf(result.data)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result.data, '__proto__')?.value).toBe('y');
  });

  it('rejects a patch that is not an object', () => {
    expectPatchError(() => strategic(pod(), [{ op: 'add' }], POD), 400, /cannot unmarshal array/);
  });

  it('never mutates its inputs nor shares values with the patch', () => {
    const original = deepFreeze(pod());
    const patch = deepFreeze({
      metadata: { labels: { app: null }, finalizers: ['x'] },
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'new' }, { name: 'sidecar' }],
        containers: [
          { name: 'app', env: [{ name: 'NEW', value: '1' }] },
          { name: 'new', image: 'x' },
        ],
        volumes: [{ name: 'cache', emptyDir: {} }],
      },
    });
    // Frozen inputs make any write to them throw; writing to the result proves no sharing.
    const result = strategic(original, patch, POD);
    (at(result, 'spec.volumes.0') as JsonObject).name = 'changed';
    (at(result, 'spec.containers.1') as JsonObject).image = 'changed';
    expect(original).toEqual(pod());
  });
});
