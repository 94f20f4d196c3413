// Strategic merge patch over the built-in kinds other than Pod: Node, Service,
// workloads, policy, storage and config.
import { describe, expect } from 'vitest';
import type { JsonObject } from './json.js';
import { DEPLOYMENT, NODE, SERVICE, deployment, node, service, strategicCases } from './test-fixtures.js';

describe('strategic merge patch: Node and Service', () => {
  strategicCases([
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
  strategicCases([
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
  strategicCases([
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
