// Strategic merge patch over the built-in kinds: which lists merge, by which key, and
// which are replaced. Directive handling ($patch, $retainKeys, ...) is in
// strategic-directives.test.ts.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { applyPatch } from './index.js';
import type { PatchTarget } from './schema.js';
import {
  DEPLOYMENT,
  NODE,
  POD,
  SERVICE,
  at,
  deepFreeze,
  deployment,
  expectPatchError,
  node,
  pod,
  service,
} from './test-fixtures.js';

interface Row {
  name: string;
  target: PatchTarget;
  original: () => JsonObject;
  patch: unknown;
  path: string;
  want: unknown;
}

const strategic = (original: unknown, patch: unknown, target: PatchTarget) =>
  applyPatch(original, patch, 'strategic', target);

const run = (rows: Row[]) =>
  it.each(rows)('$name', ({ target, original, patch, path, want }) => {
    expect(at(strategic(original(), patch, target), path)).toEqual(want);
  });

describe('strategic merge patch: metadata (every kind)', () => {
  run([
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
  run([
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

describe('strategic merge patch: Node and Service', () => {
  run([
    {
      name: 'kubectl cordon sets spec.unschedulable',
      target: NODE,
      original: node,
      patch: { spec: { unschedulable: true } },
      path: 'spec',
      want: expect.objectContaining({ unschedulable: true, podCIDR: '10.244.1.0/24' }),
    },
    {
      name: 'node taints have no strategy: replaced whole',
      target: NODE,
      original: node,
      patch: { spec: { taints: [{ key: 'palisade.io/fenced', value: 'true', effect: 'NoExecute' }] } },
      path: 'spec.taints',
      want: [{ key: 'palisade.io/fenced', value: 'true', effect: 'NoExecute' }],
    },
    {
      name: 'node podCIDRs merge as a set',
      target: NODE,
      original: node,
      patch: { spec: { podCIDRs: ['fd00:10:244:1::/64'] } },
      path: 'spec.podCIDRs',
      want: ['fd00:10:244:1::/64', '10.244.1.0/24'],
    },
    {
      name: 'node status conditions merge by type (kubelet heartbeat)',
      target: NODE,
      original: node,
      patch: { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] } },
      path: 'status.conditions',
      want: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
        {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          lastHeartbeatTime: '2024-05-01T10:00:00Z',
        },
      ],
    },
    {
      name: 'node status addresses merge by type',
      target: NODE,
      original: node,
      patch: { status: { addresses: [{ type: 'ExternalIP', address: '203.0.113.5' }] } },
      path: 'status.addresses',
      want: [
        { type: 'ExternalIP', address: '203.0.113.5' },
        { type: 'InternalIP', address: '192.168.1.10' },
        { type: 'Hostname', address: 'node-a' },
      ],
    },
    {
      name: 'service ports merge by port',
      target: SERVICE,
      original: service,
      patch: { spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] } },
      path: 'spec.ports',
      want: [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30080 },
        { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
      ],
    },
    {
      name: 'service selector merges as a map',
      target: SERVICE,
      original: service,
      patch: { spec: { selector: { tier: 'frontend' } } },
      path: 'spec.selector',
      want: { app: 'web', tier: 'frontend' },
    },
    {
      name: 'service status conditions merge by type',
      target: SERVICE,
      original: () => ({
        ...service(),
        status: { conditions: [{ type: 'LoadBalancerPortsError', status: 'True' }] },
      }),
      patch: { status: { conditions: [{ type: 'LoadBalancerPortsError', status: 'False' }] } },
      path: 'status.conditions',
      want: [{ type: 'LoadBalancerPortsError', status: 'False' }],
    },
  ]);
});

const statefulSet = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db' },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'postgres', image: 'postgres:15' },
          { name: 'exporter', image: 'pg-exporter:0.15' },
        ],
      },
    },
    volumeClaimTemplates: [
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } },
      { metadata: { name: 'wal' }, spec: { accessModes: ['ReadWriteOnce'] } },
    ],
  },
});

const cronJob = (): JsonObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'backup' },
  spec: {
    schedule: '0 3 * * *',
    jobTemplate: {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'backup', image: 'backup:1', env: [{ name: 'TARGET', value: 's3' }] }],
          },
        },
      },
    },
  },
});

const pdb = (): JsonObject => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web' },
  spec: { minAvailable: 2, selector: { matchLabels: { app: 'web', tier: 'frontend' } } },
  status: { conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }] },
});

describe('strategic merge patch: workloads and policy', () => {
  run([
    {
      name: 'kubectl set image reaches spec.template.spec.containers by name',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } },
      path: 'spec.template.spec.containers',
      want: [
        { name: 'app', image: 'nginx:1.26', env: [{ name: 'MODE', value: 'prod' }] },
        { name: 'sidecar', image: 'envoyproxy/envoy:v1.29' },
      ],
    },
    {
      name: 'kubectl rollout restart annotates the pod template',
      target: DEPLOYMENT,
      original: deployment,
      patch: {
        spec: {
          template: {
            metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-05-01T10:00:00Z' } },
          },
        },
      },
      path: 'spec.template.metadata',
      want: {
        labels: { app: 'web', tier: 'frontend' },
        annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-05-01T10:00:00Z' },
      },
    },
    {
      name: 'deployment status conditions merge by type',
      target: DEPLOYMENT,
      original: deployment,
      patch: {
        status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] },
      },
      path: 'status.conditions.1.reason',
      want: 'ReplicaSetUpdated',
    },
    {
      name: 'deployment selector has no strategy: matchLabels merge',
      target: DEPLOYMENT,
      original: deployment,
      patch: { spec: { selector: { matchLabels: { app: 'api' } } } },
      path: 'spec.selector',
      want: { matchLabels: { app: 'api', tier: 'frontend' } },
    },
    {
      name: 'statefulset template containers merge by name',
      target: { group: 'apps', kind: 'StatefulSet' },
      original: statefulSet,
      patch: { spec: { template: { spec: { containers: [{ name: 'postgres', image: 'postgres:16' }] } } } },
      path: 'spec.template.spec.containers',
      want: [
        { name: 'postgres', image: 'postgres:16' },
        { name: 'exporter', image: 'pg-exporter:0.15' },
      ],
    },
    {
      name: 'statefulset volumeClaimTemplates are atomic: replaced whole',
      target: { group: 'apps', kind: 'StatefulSet' },
      original: statefulSet,
      patch: {
        spec: {
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOncePod'] } }],
        },
      },
      path: 'spec.volumeClaimTemplates',
      want: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOncePod'] } }],
    },
    {
      name: 'replicaset template containers merge by name',
      target: { group: 'apps', kind: 'ReplicaSet' },
      original: () => ({
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'app', image: 'a:1' },
                { name: 'b', image: 'b:1' },
              ],
            },
          },
        },
      }),
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'a:2' }] } } } },
      path: 'spec.template.spec.containers',
      want: [
        { name: 'app', image: 'a:2' },
        { name: 'b', image: 'b:1' },
      ],
    },
    {
      name: 'cronjob reaches jobTemplate.spec.template containers and env',
      target: { group: 'batch', kind: 'CronJob' },
      original: cronJob,
      patch: {
        spec: {
          jobTemplate: {
            spec: {
              template: {
                spec: { containers: [{ name: 'backup', env: [{ name: 'TARGET', value: 'gcs' }] }] },
              },
            },
          },
        },
      },
      path: 'spec.jobTemplate.spec.template.spec.containers',
      want: [{ name: 'backup', image: 'backup:1', env: [{ name: 'TARGET', value: 'gcs' }] }],
    },
    {
      name: 'PodDisruptionBudget selector has patchStrategy=replace',
      target: { group: 'policy', kind: 'PodDisruptionBudget' },
      original: pdb,
      patch: { spec: { selector: { matchLabels: { app: 'api' } } } },
      path: 'spec.selector',
      want: { matchLabels: { app: 'api' } },
    },
    {
      name: 'PodDisruptionBudget status conditions merge by type',
      target: { group: 'policy', kind: 'PodDisruptionBudget' },
      original: pdb,
      patch: {
        status: { conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }] },
      },
      path: 'status.conditions',
      want: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }],
    },
  ]);
});

describe('strategic merge patch: storage, config and the other built-in kinds', () => {
  run([
    {
      name: 'PersistentVolume accessModes have no strategy: replaced whole',
      target: { group: '', kind: 'PersistentVolume' },
      original: () => ({
        spec: {
          accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
          claimRef: { name: 'data', namespace: 'shop' },
        },
      }),
      patch: { spec: { accessModes: ['ReadWriteOncePod'], claimRef: { uid: 'pvc-1' } } },
      path: 'spec',
      want: {
        accessModes: ['ReadWriteOncePod'],
        claimRef: { name: 'data', namespace: 'shop', uid: 'pvc-1' },
      },
    },
    {
      name: 'PersistentVolumeClaim status conditions merge by type',
      target: { group: '', kind: 'PersistentVolumeClaim' },
      original: () => ({ status: { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True' }] } }),
      patch: { status: { conditions: [{ type: 'FileSystemResizePending', status: 'True' }] } },
      path: 'status.conditions',
      want: [
        { type: 'FileSystemResizePending', status: 'True' },
        { type: 'Resizing', status: 'True' },
      ],
    },
    {
      name: 'Namespace status conditions merge by type',
      target: { group: '', kind: 'Namespace' },
      original: () => ({
        status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'True' }] },
      }),
      patch: { status: { conditions: [{ type: 'NamespaceContentRemaining', status: 'False' }] } },
      path: 'status.conditions',
      want: [{ type: 'NamespaceContentRemaining', status: 'False' }],
    },
    {
      name: 'ServiceAccount secrets merge by name',
      target: { group: '', kind: 'ServiceAccount' },
      original: () => ({ secrets: [{ name: 'token-a' }], imagePullSecrets: [{ name: 'regcred' }] }),
      patch: { secrets: [{ name: 'token-b' }], imagePullSecrets: [{ name: 'ghcr' }] },
      path: '',
      want: { secrets: [{ name: 'token-b' }, { name: 'token-a' }], imagePullSecrets: [{ name: 'ghcr' }] },
    },
    {
      name: 'Secret data keys merge; null removes one',
      target: { group: '', kind: 'Secret' },
      original: () => ({ type: 'Opaque', data: { user: 'YWRtaW4=', pass: 'czNjcjN0' } }),
      patch: { data: { pass: null, token: 'dG9rZW4=' } },
      path: 'data',
      want: { user: 'YWRtaW4=', token: 'dG9rZW4=' },
    },
    {
      name: 'ConfigMap data merges as a map',
      target: { group: '', kind: 'ConfigMap' },
      original: () => ({ data: { 'app.properties': 'a=1', 'log.level': 'info' } }),
      patch: { data: { 'log.level': 'debug' } },
      path: 'data',
      want: { 'app.properties': 'a=1', 'log.level': 'debug' },
    },
    {
      name: 'Event series merges as a map',
      target: { group: '', kind: 'Event' },
      original: () => ({
        reason: 'BackOff',
        count: 3,
        series: { count: 2, lastObservedTime: '2024-05-01T10:00:00.000000Z' },
      }),
      patch: { count: 4, series: { count: 3 } },
      path: '',
      want: {
        reason: 'BackOff',
        count: 4,
        series: { count: 3, lastObservedTime: '2024-05-01T10:00:00.000000Z' },
      },
    },
    {
      name: 'Lease spec fields are updated in place',
      target: { group: 'coordination.k8s.io', kind: 'Lease' },
      original: () => ({
        spec: {
          holderIdentity: 'node-a',
          leaseDurationSeconds: 40,
          renewTime: '2024-05-01T10:00:00.000000Z',
        },
      }),
      patch: { spec: { renewTime: '2024-05-01T10:00:10.000000Z' } },
      path: 'spec',
      want: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:10.000000Z' },
    },
    {
      name: 'EndpointSlice endpoints are atomic: replaced whole',
      target: { group: 'discovery.k8s.io', kind: 'EndpointSlice' },
      original: () => ({
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.244.1.7'] }, { addresses: ['10.244.2.9'] }],
      }),
      patch: { endpoints: [{ addresses: ['10.244.1.7'], conditions: { ready: true } }] },
      path: 'endpoints',
      want: [{ addresses: ['10.244.1.7'], conditions: { ready: true } }],
    },
    {
      name: 'VolumeAttachment status merges as a map',
      target: { group: 'storage.k8s.io', kind: 'VolumeAttachment' },
      original: () => ({
        spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-a' },
        status: { attached: false },
      }),
      patch: { status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } } },
      path: 'status',
      want: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } },
    },
    {
      name: 'a built-in kind outside the table: lists replaced, metadata still merges',
      target: { group: 'rbac.authorization.k8s.io', kind: 'Role' },
      original: () => ({
        metadata: { finalizers: ['a'] },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      }),
      patch: {
        metadata: { finalizers: ['b'] },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      },
      path: '',
      want: {
        metadata: { finalizers: ['b', 'a'] },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      },
    },
  ]);
});

describe('strategic merge patch: values without a merge', () => {
  run([
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
