// Test harness for the scheduler, node lifecycle, taint eviction, pod GC and disruption
// controllers: an embedded API server, the controllers under test, and fake kubelets that
// the test drives by hand (a Node object, a Lease it renews, status it posts on request).
import * as k8s from '@kubernetes/client-node';
import type { ApiServerOptions } from '../../apiserver/index.js';
import { type Cluster, eventually, startCluster } from '../../apiserver/test/harness.js';
import { type Controller, type ControllerContext, makeContext } from '../runtime/context.js';
import { type Durations, scaled } from '../runtime/durations.js';
import { mergePatch } from '../runtime/patches.js';
import { underTest } from './besideReal.js';

/** Short durations: a silent kubelet is noticed after 1.5 s, looked for every 250 ms. */
export const fastDurations: Partial<Durations> = {
  nodeMonitorGracePeriodMs: 1_500,
  nodeMonitorPeriodMs: 250,
  leaseRenewIntervalMs: 250,
  podGcIntervalMs: 250,
};

const micro = (ms = Date.now()) => `${new Date(ms).toISOString().slice(0, 23)}000Z`;
const rfc3339 = (ms = Date.now()) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export interface NodeOptions {
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: number;
  taints?: k8s.V1Taint[];
  unschedulable?: boolean;
  ready?: 'True' | 'False';
}

function conditions(ready: 'True' | 'False', now = rfc3339()): k8s.V1NodeCondition[] {
  const c = (type: string, status: string, reason: string) =>
    ({
      type,
      status,
      reason,
      message: reason,
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    }) as unknown as k8s.V1NodeCondition;
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID'),
    c('Ready', ready, ready === 'True' ? 'KubeletReady' : 'KubeletNotReady'),
  ];
}

/** Kubelets played by the test: each renews its Lease until silenced. */
export class FakeKubelets {
  private readonly alive = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly c: Cluster,
    private readonly coordination: k8s.CoordinationV1Api,
    renewMs: number,
  ) {
    this.timer = setInterval(() => void this.renewAll(), renewMs);
  }

  async addNode(name: string, o: NodeOptions = {}): Promise<k8s.V1Node> {
    const resources = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: String(o.pods ?? 110) };
    const node = await this.c.core.createNode({
      body: {
        metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } },
        spec: { taints: o.taints, unschedulable: o.unschedulable },
        status: { capacity: resources, allocatable: resources, conditions: conditions(o.ready ?? 'True') },
      },
    });
    await this.coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() as any },
      },
    });
    this.alive.add(name);
    return node;
  }

  /** The kubelet stops renewing its Lease (crash or partition). */
  silence(name: string) {
    this.alive.delete(name);
  }

  /** The kubelet is back: it posts its status (Ready as given) and renews again. */
  async revive(name: string, ready: 'True' | 'False' = 'True') {
    await this.postStatus(name, ready);
    await this.renew(name);
    this.alive.add(name);
  }

  async postStatus(name: string, ready: 'True' | 'False') {
    await this.c.core.patchNodeStatus(
      { name, body: { status: { conditions: conditions(ready) } } },
      mergePatch,
    );
  }

  private async renew(name: string) {
    await this.coordination.patchNamespacedLease(
      { name, namespace: 'kube-node-lease', body: { spec: { renewTime: micro() } } },
      mergePatch,
    );
  }

  private async renewAll() {
    await Promise.all([...this.alive].map((n) => this.renew(n).catch(() => undefined)));
  }

  stop() {
    clearInterval(this.timer);
  }
}

export interface ControlPlane {
  c: Cluster;
  ctx: ControllerContext;
  kubelets: FakeKubelets;
  coordination: k8s.CoordinationV1Api;
  policy: k8s.PolicyV1Api;
  storage: k8s.StorageV1Api;
  stop(): Promise<void>;
}

export async function startControlPlane(
  controllers: Controller[],
  durations: Partial<Durations> = {},
  server: ApiServerOptions = {},
): Promise<ControlPlane> {
  const d = scaled({ ...fastDurations, ...durations });
  const c = await startCluster({ ...server, durations: d });
  const ctx = makeContext(c.kc, d);
  controllers = underTest(controllers);
  for (const ctl of controllers) ctl.register(ctx);
  // the tests watch nodes and pods through these; beside a real control plane no simulated
  // controller has asked for them, and informers asked for later would never start
  void [ctx.informers.nodes, ctx.informers.pods];
  await ctx.informers.startAll();
  for (const ctl of controllers) ctl.start();
  const coordination = c.kc.makeApiClient(k8s.CoordinationV1Api);
  const kubelets = new FakeKubelets(c, coordination, d.leaseRenewIntervalMs);
  return {
    c,
    ctx,
    kubelets,
    coordination,
    policy: c.kc.makeApiClient(k8s.PolicyV1Api),
    storage: c.kc.makeApiClient(k8s.StorageV1Api),
    async stop() {
      kubelets.stop();
      for (const ctl of controllers) ctl.stop();
      await ctx.informers.stopAll();
      await c.stop();
    },
  };
}

/**
 * Wait until the controllers' node cache shows each node without the not-ready taint it was
 * created with: a real kube-controller-manager lifts it a node-monitor period after it sees
 * the node Ready, which under load can come after a test's first pod.
 */
export async function untilSchedulable(cp: ControlPlane, ...names: string[]) {
  for (const name of names)
    await eventually(
      () => {
        const n = cp.ctx.informers.nodes.get(name);
        return n && !n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready') ? n : undefined;
      },
      `node ${name} schedulable (no not-ready taint)`,
      30_000,
    );
}

/** A minimal pod; `extra.spec` fields override the defaults. */
export function pod(
  name: string,
  extra: { labels?: Record<string, string>; spec?: Partial<k8s.V1PodSpec> } = {},
) {
  return {
    metadata: { name, labels: extra.labels ?? { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...(extra.spec ?? {}) },
  } as k8s.V1Pod;
}

export const cpuPod = (name: string, cpu: string, spec: Partial<k8s.V1PodSpec> = {}) =>
  pod(name, {
    spec: { containers: [{ name: 'app', image: 'nginx:1.25', resources: { requests: { cpu } } }], ...spec },
  });

/** What a kubelet reports for a running, ready pod. */
export async function markRunningReady(c: Cluster, namespace: string, name: string, ready = true) {
  const now = rfc3339();
  const status = ready ? 'True' : 'False';
  await c.core.patchNamespacedPodStatus(
    {
      name,
      namespace,
      body: {
        status: {
          phase: 'Running',
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status, lastTransitionTime: now },
            { type: 'Ready', status, lastTransitionTime: now },
          ],
        },
      },
    },
    mergePatch,
  );
}

export const conditionOf = (o: { status?: { conditions?: { type: string }[] } } | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type) as
    | { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: unknown }
    | undefined;
