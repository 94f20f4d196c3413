// Shared pieces of the deletion-protection integration tests: an embedded cluster with
// Palisade's protection service and its webhook registered, PodProtectors written as a
// user would, and pods in the style of Podseidon's e2e fixtures — never scheduled, their
// readiness (and its time) set through the status subresource, so counts are exact.
import * as k8s from '@kubernetes/client-node';
import { eventually, failure } from '../../../sim/apiserver/test/harness.js';
import { startScenario, tinyDurations } from '../../../sim/test/clusterHarness.js';
import { type Cell, statusOf } from '../../../lib/protection/status.js';
import type { ClusterSpec } from '../../kube/connection.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionConfigInput, ProtectionService } from '../service.js';
import { palisadeKc } from '../../test/identity.js';
import { startProtectionAlone } from './standalone.js';

export const GROUP = 'podseidon.kubewharf.io';
export const VERSION = 'v1alpha1';
export const PLURAL = 'podprotectors';
export const WEBHOOK = 'podseidon.kubewharf.io';
export const CRITERION = 'podseidon.kubewharf.io/health-criterion';
/** Podseidon e2e's marker: the aggregators leave such protectors alone (the test writes their counts) */
export const IGNORE_LABEL = 'aggregator-ignore-ppr';

export type Cluster = Awaited<ReturnType<typeof startScenario>>;

export function scenario(name: string, nodes = 1) {
  return `
name: ${name}
${tinyDurations}
nodes:
  cpu: "8"
  memory: 32Gi
  pods: 50
  zones:
    - name: zone-a
      racks: [{ name: a1, count: ${nodes} }]
workloads: []
`;
}

export interface Env {
  cluster: Cluster;
  protection: ProtectionService;
  custom: k8s.CustomObjectsApi;
  core: k8s.CoreV1Api;
  stop(): Promise<void>;
}

export const baseConfig = (over: ProtectionConfigInput = {}): ProtectionConfigInput => ({
  webhook: { port: 0, host: '127.0.0.1', register: true },
  aggregator: {
    protectorSelector: `${IGNORE_LABEL}!=true`,
    updateTrigger: { enabled: true, namespace: 'default', intervalMillis: 300 },
  },
  ...over,
});

/** The cell ID of a single embedded cluster: its context name (protection's default). */
export const CELL = 'palisade-embedded';

/** One embedded cluster, the given namespaces, and the protection service on it (cell CELL). */
export async function startEnv(
  name: string,
  namespaces: string[],
  opts: { nodes?: number; config?: ProtectionConfigInput } = {},
): Promise<Env> {
  const cluster = await startScenario(scenario(name, opts.nodes));
  for (const ns of namespaces) await createReadyNamespace(cluster.core, ns);
  const protection = await startProtectionAlone({
    config: opts.config ?? baseConfig(),
    clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(cluster.kc) }],
  });
  return {
    cluster,
    protection,
    custom: cluster.kc.makeApiClient(k8s.CustomObjectsApi),
    core: cluster.core,
    async stop() {
      await protection.stop();
      await cluster.stop();
    },
  };
}

export const clusterSpec = (id: string, c: Cluster): ClusterSpec => ({ id, context: id, kc: c.kc });

// ---- protectors ----------------------------------------------------------------------

export interface ProtectorOpts {
  minAvailable: number;
  minReadySeconds?: number;
  selector: Record<string, string>;
  config?: { maxConcurrentLag?: number; compactThreshold?: number; aggregationRateMillis?: number };
  labels?: Record<string, string>;
  finalizers?: string[];
}

export async function createProtector(
  custom: k8s.CustomObjectsApi,
  ns: string,
  name: string,
  o: ProtectorOpts,
) {
  return (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace: ns,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'PodProtector',
      metadata: { name, namespace: ns, labels: o.labels ?? {}, finalizers: o.finalizers ?? [] },
      spec: {
        minAvailable: o.minAvailable,
        minReadySeconds: o.minReadySeconds ?? 0,
        selector: { matchLabels: o.selector },
        ...(o.config ? { admissionHistoryConfig: o.config } : {}),
      },
    },
  })) as any;
}

export async function getProtector(custom: k8s.CustomObjectsApi, ns: string, name: string): Promise<any> {
  return custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace: ns,
    name,
  });
}

export async function patchProtector(custom: k8s.CustomObjectsApi, ns: string, name: string, body: object) {
  return custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: PLURAL, namespace: ns, name, body },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

/** Write a protector's status as an aggregator would (the e2e suite's "test writes status itself"). */
export async function writeProtectorStatus(
  custom: k8s.CustomObjectsApi,
  ns: string,
  name: string,
  cells: Cell[],
) {
  const p = await getProtector(custom, ns, name);
  return custom.replaceNamespacedCustomObjectStatus({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace: ns,
    name,
    body: { ...p, status: statusOf(cells, Date.now()) },
  });
}

export const cellOf = (p: any, id: string) =>
  (p?.status?.cells ?? []).find((c: any) => c.cellID === id) as any | undefined;
export const bucketsOf = (p: any, id: string): any[] => cellOf(p, id)?.admissionHistory?.buckets ?? [];

/** Podseidon e2e's MatchPprStatus: summary totals and per-cell total/available (missing cell: 0). */
export function statusMatches(
  p: any,
  want: { total: number; aggregated: number; estimated: number; cells: Record<string, [number, number]> },
) {
  const s = p?.status?.summary;
  if (!s) return false;
  if (s.totalReplicas !== want.total) return false;
  if (s.aggregatedAvailableReplicas !== want.aggregated) return false;
  if (s.estimatedAvailableReplicas !== want.estimated) return false;
  return Object.entries(want.cells).every(([id, [total, available]]) => {
    const a = cellOf(p, id)?.aggregation;
    return (a?.totalReplicas ?? 0) === total && (a?.availableReplicas ?? 0) === available;
  });
}

export const describeStatus = (p: any) =>
  JSON.stringify({ summary: p?.status?.summary, cells: p?.status?.cells });

/**
 * Wait until the aggregator has written `n` pods, all available, into the protector's status
 * (one cell, CELL), and the webhook's informer has that status: the start of most scenarios.
 */
export async function untilAllAvailable(env: Env, ns: string, name: string, n: number, timeoutMs = 20_000) {
  await eventually(
    async () =>
      statusMatches(await getProtector(env.custom, ns, name), {
        total: n,
        aggregated: n,
        estimated: n,
        cells: { [CELL]: [n, n] },
      }),
    `the aggregator counts ${n} available in ${ns}/${name}`,
    timeoutMs,
  ).catch(async (e) => {
    throw new Error(`${e.message}: ${describeStatus(await getProtector(env.custom, ns, name))}`);
  });
  await eventually(
    () =>
      env.protection.store.get(`${ns}/${name}`)?.protector.status?.summary?.aggregatedAvailableReplicas === n,
    `the webhook sees ${n} available in ${ns}/${name}`,
  );
}

// ---- pods ----------------------------------------------------------------------------

/** A pod no scheduler takes and no kubelet runs: its status is whatever the test writes. */
export function fixturePod(
  name: string,
  labels: Record<string, string>,
  annotations?: Record<string, string>,
) {
  return {
    metadata: { name, labels, ...(annotations ? { annotations } : {}) },
    spec: {
      schedulerName: 'e2e-no-schedule',
      containers: [{ name: 'main', image: 'example.com/e2e/no:image' }],
    },
  } as k8s.V1Pod;
}

export async function createFixturePods(
  core: k8s.CoreV1Api,
  ns: string,
  names: string[],
  labels: Record<string, string>,
) {
  const out: k8s.V1Pod[] = [];
  for (const n of names)
    out.push(await core.createNamespacedPod({ namespace: ns, body: fixturePod(n, labels) }));
  return out;
}

const wireTime = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/** Podseidon e2e's MarkPodAsReady: Running, and Ready (and the rest) True since `readyTime`. */
export async function markReady(core: k8s.CoreV1Api, ns: string, name: string, readyTime: Date) {
  const c = (type: string) => ({ type, status: 'True', lastTransitionTime: wireTime(readyTime) });
  await patchPodStatus(core, ns, name, {
    phase: 'Running',
    conditions: [c('PodScheduled'), c('Initialized'), c('ContainersReady'), c('Ready')],
  });
}

/** Running and scheduled, but not Ready (W6's peer pod). */
export async function markRunningNotReady(core: k8s.CoreV1Api, ns: string, name: string) {
  const at = wireTime(new Date());
  await patchPodStatus(core, ns, name, {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: at },
      { type: 'Initialized', status: 'True', lastTransitionTime: at },
      { type: 'ContainersReady', status: 'False', lastTransitionTime: at },
      { type: 'Ready', status: 'False', lastTransitionTime: at },
    ],
  });
}

async function patchPodStatus(core: k8s.CoreV1Api, ns: string, name: string, status: object) {
  await core.patchNamespacedPodStatus(
    { namespace: ns, name, body: { status } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

export async function podAlive(core: k8s.CoreV1Api, ns: string, name: string) {
  const p = await core.readNamespacedPod({ namespace: ns, name });
  return !p.metadata?.deletionTimestamp;
}

export async function podGone(core: k8s.CoreV1Api, ns: string, name: string) {
  try {
    const p = await core.readNamespacedPod({ namespace: ns, name });
    return !!p.metadata?.deletionTimestamp;
  } catch (e) {
    if ((e as { code?: number }).code === 404) return true;
    throw e;
  }
}

export function evict(core: k8s.CoreV1Api, ns: string, name: string, annotations?: Record<string, string>) {
  return core.createNamespacedPodEviction({
    namespace: ns,
    name,
    body: {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: ns, ...(annotations ? { annotations } : {}) },
    },
  });
}

/** The API server's refusal: HTTP code and Status message. */
export async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  const f = await failure(p);
  return { code: f.code, message: String(f.status?.message ?? '') };
}

export const denied = (message: string) => `admission webhook "${WEBHOOK}" denied the request: ${message}`;
export const tooFew = (key: string, criterion = 'available') =>
  `PodProtector ${key} reports too few ${criterion} replicas to admit pod deletion`;
export const bufferFull = (key: string) =>
  `PodProtector ${key} has full admission buffer and is temporarily unable to admit pod deletion`;

/** Every copy of a protector the protection service's store sees from now on (its history). */
export function recordVersions(protection: ProtectionService, key: string) {
  const seen: any[] = [];
  protection.store.onChange((k, e) => {
    if (k === key && e) seen.push(e.protector);
  });
  return seen;
}

/** A pod the simulated kubelet runs; `readyAfterMs` delays its Ready condition. */
export function kubeletPod(name: string, labels: Record<string, string>, readyAfterMs?: number) {
  return {
    metadata: {
      name,
      labels,
      ...(readyAfterMs !== undefined
        ? { annotations: { 'sim.palisade.dev/ready-after-ms': String(readyAfterMs) } }
        : {}),
    },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
    },
  } as k8s.V1Pod;
}

export async function podPhase(core: k8s.CoreV1Api, ns: string, name: string) {
  const p = await core.readNamespacedPod({ namespace: ns, name });
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return { phase: p.status?.phase, ready, nodeName: p.spec?.nodeName };
}

// ---- the webhook's enforcement -------------------------------------------------------------

/** The pod-deletion webhook's failurePolicy and what the leader wrote of it (palisade.dev/enforcement). */
export async function enforcementOf(kc: k8s.KubeConfig) {
  const vwc = await kc
    .makeApiClient(k8s.AdmissionregistrationV1Api)
    .readValidatingWebhookConfiguration({ name: WEBHOOK });
  const note = vwc.metadata?.annotations?.['palisade.dev/enforcement'];
  return {
    policy: vwc.webhooks?.find((w) => w.name === WEBHOOK)?.failurePolicy,
    state: note ? (JSON.parse(note) as { state: string; probe?: string; message: string }) : undefined,
  };
}

/** Until the leader's self-probe reached a replica and failurePolicy Fail is in force. */
export async function untilEnforced(kc: k8s.KubeConfig, timeoutMs = 30_000) {
  await eventually(
    async () => {
      const e = await enforcementOf(kc);
      return e.policy === 'Fail' && e.state?.state === 'enforced';
    },
    'the pod-deletion webhook enforced (failurePolicy Fail after a self-probe)',
    timeoutMs,
  );
}

/** The namespace's labels, as the API has them. */
export async function namespaceLabels(core: k8s.CoreV1Api, ns: string) {
  return (await core.readNamespace({ name: ns })).metadata?.labels ?? {};
}
