// Realistic small objects (about 1.4 KB stored, 0.6 KB of it server defaults): what a kubelet-managed pod and node look
// like once scheduled and running. Deterministic in i so runs are comparable.

const TIERS = ['web', 'api', 'worker', 'cache'];
const TIME = '2024-05-01T10:00:00Z';

function hex(i: number, len: number): string {
  let s = '';
  let x = (i * 2654435761) >>> 0;
  while (s.length < len) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(16).padStart(8, '0');
  }
  return s.slice(0, len);
}

export const podName = (i: number) => `pod-${i}`;
export const nodeName = (i: number) => `node-${i}`;
export const appLabel = (i: number) => `app-${i % 500}`;

export interface PodPlacement {
  namespace: string;
  nodes: number;
}

/** The body a controller POSTs: clients cannot set status on create. */
export function podBody(i: number, p: PodPlacement): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(i),
      namespace: p.namespace,
      labels: { app: appLabel(i), tier: TIERS[i % 4], 'pod-template-hash': hex(i % 500, 10) },
    },
    spec: {
      nodeName: nodeName(i % p.nodes),
      containers: [
        {
          name: 'app',
          image: `registry.example.com/team/${appLabel(i)}:1.${i % 10}.0`,
          ports: [{ containerPort: 8080 }],
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
  });
}

/** What the kubelet then writes to pods/status. */
export function podStatusPatch(i: number, p: PodPlacement): string {
  const node = i % p.nodes;
  const ip = `10.${(node >> 8) & 255}.${node & 255}.${(i % 250) + 2}`;
  const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: TIME });
  return JSON.stringify({
    status: {
      phase: 'Running',
      hostIP: `192.168.${(node >> 8) & 255}.${node & 255}`,
      podIP: ip,
      conditions: ['Ready', 'ContainersReady', 'PodScheduled'].map(cond),
      containerStatuses: [
        { name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: TIME } } },
      ],
    },
  });
}

export function nodeBody(i: number): string {
  const name = nodeName(i);
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'topology.kubernetes.io/zone': `zone-${i % 3}`,
        'node.kubernetes.io/instance-type': 'm5.large',
      },
    },
    spec: {
      podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`,
      providerID: `aws:///zone-${i % 3}/i-${hex(i, 17)}`,
    },
  });
}

export function nodeStatusPatch(i: number): string {
  const resources = { cpu: '2', memory: '8Gi', pods: '110' };
  const cond = (type: string, status: string) => ({
    type,
    status,
    lastHeartbeatTime: TIME,
    lastTransitionTime: TIME,
  });
  return JSON.stringify({
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        cond('MemoryPressure', 'False'),
        cond('DiskPressure', 'False'),
        cond('PIDPressure', 'False'),
        cond('Ready', 'True'),
      ],
      addresses: [
        { type: 'InternalIP', address: `192.168.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: nodeName(i) },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.30.2',
        containerRuntimeVersion: 'containerd://1.7.13',
        osImage: 'Ubuntu 22.04',
        architecture: 'amd64',
      },
    },
  });
}

/** A merge patch that always changes the object (a no-op write would not be counted by the server). */
export function annotationPatch(seq: number): string {
  return `{"metadata":{"annotations":{"bench.palisade.dev/seq":"${seq}"}}}`;
}
