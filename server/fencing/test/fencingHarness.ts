// An embedded cluster (or PALISADE_CLUSTER=real) with the console's connection and a fencing
// controller on it, plus helpers to write FencePolicies and read NodeFences as a user would.
import * as k8s from '@kubernetes/client-node';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { rwoDatabaseScenario, startScenario } from '../../../sim/test/clusterHarness.js';
import {
  FENCE_PLURAL,
  type FencePolicySpec,
  GROUP,
  type NodeFence,
  parseNodeFence,
  POLICY_PLURAL,
  VERSION,
} from '../../../lib/fencing/types.js';
import { ClusterConnection } from '../../kube/connection.js';
import { budgetOf } from '../world.js';
import { AgentUnavailable } from '../agents.js';
import { type ExecAgentFactory, FencingController } from '../controller.js';
import { captureLogs } from '../../test/logCapture.js';
import type { Manager } from '../../runtime/manager.js';
import { ControllerRuntime } from '../../runtime/runtime.js';
import { tokenOf } from '../../test/client.js';
import { palisadeKc } from '../../test/identity.js';

/** short timings, so a takeover happens within seconds */
export const TEST_ELECTION = {
  namespace: 'kube-system',
  name: 'palisade-controller',
  leaseDurationSeconds: 3,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 250,
};

export type Fenced = Awaited<ReturnType<typeof startFencing>>;

const noExec: ExecAgentFactory = () => {
  throw new AgentUnavailable('exec agents are not configured in this test');
};

export async function startFencing(
  yaml: string,
  opts: {
    exec?: ExecAgentFactory;
    verifyWindowMs?: number;
    credentialsNamespaces?: string[];
    /** the controller Lease's timings (default TEST_ELECTION: a takeover within seconds) */
    election?: typeof TEST_ELECTION;
  } = {},
) {
  const cluster = await startScenario(yaml);
  const conn = new ClusterConnection({
    id: 'test',
    context: 'test',
    // Palisade's identity (PALISADE_TEST_IDENTITY=chart: the chart's ServiceAccount)
    kc: await palisadeKc(cluster.kc),
    infra: { url: cluster.infraApi.url, token: cluster.infraApi.token },
  });
  conn.start();
  const logs = captureLogs();
  const runtimes: ControllerRuntime[] = [];
  const seconds: FencingController[] = [];
  /**
   * Each controller is one console: its own controller runtime (a manager per cluster, its own
   * holder identity), acting only while it leads the controller Lease. All read the one
   * connection's shared watches (a second console would have its own: the same for this test).
   */
  const make = (exec = opts.exec) => {
    const runtime = new ControllerRuntime({ election: opts.election ?? TEST_ELECTION, logger: logs.logger });
    runtimes.push(runtime);
    const c = new FencingController({
      conn,
      exec: exec ?? noExec,
      logger: logs.logger,
      verifyWindowMs: opts.verifyWindowMs ?? 3_000,
      verifyEveryMs: 200,
      credentialsNamespaces: opts.credentialsNamespaces,
    });
    return { c, runtime, leader: undefined as Manager | undefined };
  };
  const begin = (m: ReturnType<typeof make>) => {
    m.c.start();
    m.leader = m.runtime.manager({ id: conn.id, kc: conn.spec.kc });
    m.leader.add(m.c.loop);
  };
  let first = make();
  let controller = first.c;
  begin(first);
  await Promise.all([conn.synced(), controller.synced()]);
  const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  return {
    cluster,
    conn,
    logs,
    get controller() {
      return controller;
    },
    /** the first console's manager (its controller Lease) */
    get elector() {
      return first.leader!;
    },
    /** another console on the same cluster, with its own agent and controller runtime */
    async secondConsole(exec?: ExecAgentFactory) {
      const second = make(exec);
      seconds.push(second.c);
      begin(second);
      await second.c.synced();
      return { controller: second.c, elector: second.leader! };
    },
    /** stop this controller and its console's runtime (releasing the Lease) and start a fresh one */
    async restartController(beforeStart?: () => Promise<void>, configure?: (c: FencingController) => void) {
      await controller.stop();
      await first.runtime.stop();
      await beforeStart?.();
      first = make();
      controller = first.c;
      configure?.(controller);
      begin(first);
      await controller.synced();
    },
    async policy(name: string, spec: Record<string, unknown>) {
      await custom.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: POLICY_PLURAL,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'FencePolicy', metadata: { name }, spec },
      });
    },
    /** what the console's approve and cancel actions write (merge patch, resourceVersion) */
    async patchFenceSpec(node: string, resourceVersion: string, spec: Record<string, unknown>) {
      await custom.patchClusterCustomObject(
        {
          group: GROUP,
          version: VERSION,
          plural: FENCE_PLURAL,
          name: node,
          body: { metadata: { resourceVersion }, spec },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    },
    async fence(node: string): Promise<NodeFence | undefined> {
      try {
        const o = await custom.getClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: FENCE_PLURAL,
          name: node,
        });
        const p = parseNodeFence(o);
        if (!p.ok) throw new Error(p.error);
        return p.value;
      } catch (e) {
        if ((e as { code?: number }).code === 404) return undefined;
        throw e;
      }
    },
    /** Waits for one of the phases; on timeout says where the fence is and what the controller logged. */
    async fenceIn(node: string, phases: string[], timeoutMs = 60_000) {
      try {
        return await eventually(
          async () => {
            const f = await this.fence(node);
            // a NodeFence is created first and its status written next: until then its phase is
            // only the schema's default, not a phase the controller reached
            return f && f.status.steps.length > 0 && phases.includes(f.status.phase) ? f : undefined;
          },
          `NodeFence ${node} in ${phases.join('/')}`,
          timeoutMs,
        );
      } catch (e) {
        const f = await this.fence(node).catch(() => undefined);
        const where = f
          ? `${f.status.phase} (${f.status.message}); attempts ${JSON.stringify(f.status.attempts)}`
          : 'no NodeFence';
        throw new Error(`${(e as Error).message}: the fence is ${where}; controller log: ${logs.tail(10)}`);
      }
    },
    async nodeEvents(node: string) {
      const ev = await cluster.core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${node}`,
      });
      return ev.items.filter((e) => e.source?.component === 'palisade-fencing');
    },
    async stop() {
      await Promise.all([controller, ...seconds].map((c) => c.stop()));
      await Promise.all(runtimes.map((r) => r.stop()));
      await conn.stop();
      await cluster.stop();
    },
  };
}

/** A StatefulSet with one RWO-volume pod on a small cluster with tiny durations. */
export const fencingScenario = (nodes = 3) =>
  rwoDatabaseScenario({
    name: 'fencing-test',
    statefulSet: 'db',
    nodes,
    durations: { forceDetachTimeout: '360s' },
  });

/** A policy that acts within seconds on the tiny durations above. */
export const quickPolicy = (agent: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '1s' }],
  agent,
  retryCount: 2,
  retryInterval: '1s',
  timeout: '10s',
  // no warning window unless a test asks for one (warning.int.test.ts): the others time the fence itself
  warningWindow: '0s',
  ...extra,
});

/**
 * A fence's path through the phases, each phase once: a release that takes more than one round
 * (kube-controller-manager's pod GC and attach-detach controller are slower than the embedded
 * cluster's) records each round that let go of more as a Releasing step of its own.
 */
export function pathOf(f: NodeFence): string[] {
  const phases = f.status.steps.map((s) => s.phase);
  return phases.filter((p, i) => p !== phases[i - 1]);
}

/** The node running shop/db-0 (the scenario's StatefulSet pod), once it is Ready. */
export async function dbNode(f: Fenced): Promise<string> {
  const pod = await eventually(
    async () => {
      const p = await f.cluster.core
        .readNamespacedPod({ name: 'db-0', namespace: 'shop' })
        .catch(() => undefined);
      return p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined;
    },
    'db-0 running',
    45_000,
  );
  return pod.spec!.nodeName!;
}

/**
 * The guarded seam as the cluster admin (their token: who acts is recorded in the audit Event),
 * with the controller's budget holds, as the console wires them.
 */
export function adminSeam(f: Fenced) {
  return {
    conn: f.conn,
    actor: {
      name: 'palisade-admin',
      via: 'token' as const,
      credential: { kind: 'token' as const, token: tokenOf(f.cluster.kc) },
    },
    authorize: async () => ({ allowed: true }),
    heldByBudget: (node: string) => {
      const h = f.controller.held().find((x) => x.node === node);
      return h?.reason === 'budget' ? h.why : undefined;
    },
    budgetOf: (spec: FencePolicySpec) => budgetOf(f.controller.informers, spec),
  };
}
