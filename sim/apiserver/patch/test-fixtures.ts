// Realistic objects and small helpers shared by the patch tests. Builders return fresh
// objects so a test can never leak state into another through a shared fixture.
import { expect, it } from 'vitest';
import { PatchError } from './errors.js';
import { applyPatch } from './index.js';
import type { JsonObject } from './json.js';
import type { PatchTarget } from './schema.js';

export const POD: PatchTarget = { group: '', kind: 'Pod' };
export const NODE: PatchTarget = { group: '', kind: 'Node' };
export const SERVICE: PatchTarget = { group: '', kind: 'Service' };
export const DEPLOYMENT: PatchTarget = { group: 'apps', kind: 'Deployment' };

export function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-6d4cf56db6-x7k2p',
      namespace: 'shop',
      uid: 'pod-uid-1',
      resourceVersion: '4711',
      labels: { app: 'web', tier: 'frontend' },
      annotations: { 'prometheus.io/scrape': 'true' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-6d4cf56db6',
          uid: 'rs-uid-1',
          controller: true,
        },
      ],
      finalizers: ['palisade.io/protect'],
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.25',
          ports: [
            { name: 'http', containerPort: 80, protocol: 'TCP' },
            { name: 'https', containerPort: 443, protocol: 'TCP' },
          ],
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
          volumeMounts: [
            { name: 'data', mountPath: '/data' },
            { name: 'config', mountPath: '/etc/app', readOnly: true },
          ],
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m' } },
        },
        { name: 'sidecar', image: 'envoyproxy/envoy:v1.29' },
      ],
      initContainers: [{ name: 'migrate', image: 'shop/migrate:3' }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'web-data' } },
        { name: 'config', configMap: { name: 'web-config' } },
      ],
      imagePullSecrets: [{ name: 'regcred' }],
      hostAliases: [{ ip: '10.0.0.1', hostnames: ['db.local'] }],
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      nodeName: 'node-a',
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
      ],
      podIPs: [{ ip: '10.244.1.7' }],
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0 },
        { name: 'sidecar', ready: true, restartCount: 1 },
      ],
    },
  };
}

export function node(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } },
    spec: {
      podCIDR: '10.244.1.0/24',
      podCIDRs: ['10.244.1.0/24'],
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2024-05-01T10:00:00Z' },
      ],
      addresses: [
        { type: 'InternalIP', address: '192.168.1.10' },
        { type: 'Hostname', address: 'node-a' },
      ],
    },
  };
}

export function service(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.20',
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
        { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
      ],
    },
  };
}

export function deployment(): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', generation: 3, labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web', tier: 'frontend' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web', tier: 'frontend' } },
        spec: {
          containers: [
            { name: 'app', image: 'nginx:1.25', env: [{ name: 'MODE', value: 'prod' }] },
            { name: 'sidecar', image: 'envoyproxy/envoy:v1.29' },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
    status: {
      replicas: 3,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  };
}

/** Value at a dotted path; numeric segments index lists. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split('.').filter(Boolean)) {
    current = (current as Record<string, unknown> | undefined)?.[segment];
  }
  return current;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Asserts `run` throws a PatchError with this status code and a message matching `pattern`. */
export function expectPatchError(run: () => unknown, code: 400 | 422, pattern: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(PatchError);
  expect((caught as PatchError).code).toBe(code);
  expect((caught as PatchError).message).toMatch(pattern);
}

export const strategic = (original: unknown, patch: unknown, target: PatchTarget = POD) =>
  applyPatch(original, patch, 'strategic', target);

export interface Case {
  name: string;
  /** Defaults to a Pod. */
  target?: PatchTarget;
  /** Builds the live object; defaults to pod(). */
  original?: () => JsonObject;
  patch: unknown;
  /** Where to look in the result (see at()). */
  path: string;
  want: unknown;
}

export interface ErrorCase {
  name: string;
  target?: PatchTarget;
  original?: () => JsonObject;
  patch: unknown;
  code?: 400 | 422;
  message: RegExp;
}

/** One test per row: apply the strategic patch and compare the value at `path`. */
export function strategicCases(rows: Case[]): void {
  it.each(rows)('$name', ({ target, original = pod, patch, path, want }) => {
    expect(at(strategic(original(), patch, target), path)).toEqual(want);
  });
}

export function strategicErrorCases(rows: ErrorCase[]): void {
  it.each(rows)('rejects $name', ({ target, original = pod, patch, code = 400, message }) => {
    expectPatchError(() => strategic(original(), patch, target), code, message);
  });
}
