// Starts a whole embedded cluster (API server, controllers, kubelets, infrastructure)
// from an inline scenario, for integration tests of the seed 000 / 003 stories; on the
// real control plane when PALISADE_CLUSTER=real.
import * as k8s from '@kubernetes/client-node';
import { serviceAccountReady } from '../apiserver/test/harness.js';
import { type EmbeddedCluster, backendFromEnv, startEmbeddedCluster } from '../cluster.js';
import { namespaces } from '../scenario/build.js';
import { parseScenario } from '../scenario/load.js';

const TINY_DURATIONS: Record<string, string> = {
  nodeMonitorGracePeriod: '2s',
  nodeMonitorPeriod: '200ms',
  leaseDuration: '2s',
  leaseRenewInterval: '400ms',
  nodeStatusUpdate: '1s',
  defaultToleration: '3s',
  forceDetachTimeout: '4s',
  forceDetach: 'true',
  podGcInterval: '300ms',
  containerStart: '100ms',
  podReadyDelay: '200ms',
  attachDelay: '100ms',
};

/** A scenario's `durations:` block: every period scaled down so a test sees a node's life in seconds. */
export function durationsYaml(overrides: Record<string, string> = {}): string {
  const lines = Object.entries({ ...TINY_DURATIONS, ...overrides }).map(([k, v]) => `  ${k}: ${v}`);
  return `\ndurations:\n${lines.join('\n')}\n`;
}

export const tinyDurations = durationsYaml();

/**
 * Seed 000's database: one StatefulSet pod with an RWO volume on a small one-zone cluster
 * (the partition, fencing, guarded-action and volume-view tests all start from it).
 */
export function rwoDatabaseScenario(o: {
  name: string;
  statefulSet?: string;
  namespace?: string;
  nodes?: number;
  durations?: Record<string, string>;
}): string {
  return `
name: ${o.name}
${durationsYaml(o.durations)}
nodes:
  cpu: "4"
  memory: 16Gi
  zones:
    - name: zone-a
      racks: [{ name: a1, count: ${o.nodes ?? 3} }]
storageClasses:
  - name: san-rwo
    bindingMode: WaitForFirstConsumer
workloads:
  - kind: StatefulSet
    name: ${o.statefulSet ?? 'web'}
    namespace: ${o.namespace ?? 'shop'}
    replicas: 1
    volume: { storageClass: san-rwo, size: 1Gi, accessMode: ReadWriteOnce }
    terminationGracePeriodSeconds: 5
`;
}

export async function startScenario(
  yaml: string,
): Promise<EmbeddedCluster & { core: k8s.CoreV1Api; apps: k8s.AppsV1Api; storage: k8s.StorageV1Api }> {
  const scenario = parseScenario(yaml, 'test scenario');
  // PALISADE_CLUSTER=real: the same scenario on etcd + kube-apiserver + kube-controller-manager
  const c = await startEmbeddedCluster({ scenario, backend: backendFromEnv() });
  const core = c.kc.makeApiClient(k8s.CoreV1Api);
  // tests create pods of their own at once: wait for what a real cluster needs for them
  for (const ns of new Set(['default', ...namespaces(scenario)])) await serviceAccountReady(core, ns);
  return {
    ...c,
    core,
    apps: c.kc.makeApiClient(k8s.AppsV1Api),
    storage: c.kc.makeApiClient(k8s.StorageV1Api),
  };
}

export function readyCondition(n: k8s.V1Node | undefined) {
  return n?.status?.conditions?.find((c) => c.type === 'Ready');
}
