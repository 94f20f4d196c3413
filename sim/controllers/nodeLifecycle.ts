// Stand-in for kube-controller-manager's node lifecycle controller. Every
// nodeMonitorPeriod it checks each node's last sign of life (Lease renewal or Ready
// heartbeat); a node silent for longer than nodeMonitorGracePeriod gets its conditions set
// to Unknown ("Kubelet stopped posting node status.") and its pods marked not Ready. It
// keeps the condition taints in line with the conditions (not-ready / unreachable,
// NoSchedule and NoExecute; pressure and cordon taints NoSchedule) and takes them off when
// the kubelet reports Ready again. Pure decisions live in lib/kube/nodeHealth.ts.
// As kube-controller-manager: nodes are handled by several workers at once
// (nodeUpdateWorkerSize), so one node's slow pod writes never hold up another's taints, and a
// taint write that loses a race with the kubelet's status post is retried at once on a fresh
// read of the node (RemoveTaintOffNode / SwapNodeControllerTaint: RetryOnConflict), not left
// to the next pass on a cache that may still be behind.
import type * as k8s from '@kubernetes/client-node';
import { podCondition, setPodCondition } from '../../lib/kube/conditions.js';
import {
  isSilent,
  LABEL_EXCLUDE_DISRUPTION,
  lastHeardMs,
  markConditionsUnknown,
  type NoExecuteMode,
  noExecuteModes,
  reconcileNodeTaints,
  sameTaintSet,
  taintWrites,
  zoneKey,
} from '../rules/kube/nodeHealth.js';
import { errorText, PodsByNode, podSubject, splitKey, writePodStatus } from './pods.js';
import { type Controller, type ControllerContext, statusCode } from './runtime/context.js';
import { nodeReady } from './runtime/conventions.js';
import { mergePatch } from './runtime/patches.js';
import { WorkQueue } from './runtime/queue.js';

const COMPONENT = 'node-controller';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_NAMESPACE = 'kube-node-lease';
/** kube-controller-manager's nodeUpdateWorkerSize: nodes handled at once in a monitor pass */
export const NODE_UPDATE_WORKERS = 8;
/** UpdateTaintBackoff: 5 tries, 100 ms apart plus up to 100 % jitter */
const TAINT_TRIES = 5;
const TAINT_RETRY_MS = 100;

export class NodeLifecycleController implements Controller {
  readonly name = 'node-lifecycle';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private podsByNode!: PodsByNode;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private modeFor: (zone: string) => NoExecuteMode = () => 'add';

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) => ctx.log(this.name, `node ${name}: ${errorText(err)}`),
      NODE_UPDATE_WORKERS,
    );
    void ctx.informers.leases;
    this.podsByNode = new PodsByNode(ctx.informers.pods);
    // kubelet status posts (e.g. Ready again) are acted on at once, not at the next pass
    const enqueue = (n: k8s.V1Node) => this.running && this.queue.add(n.metadata!.name!);
    ctx.informers.nodes.on({
      add: (n) => {
        this.nodeEvent(n, 'RegisteredNode', 'Registered Node %s in Controller');
        enqueue(n);
      },
      update: enqueue,
      delete: (n) => this.nodeEvent(n, 'RemovingNode', 'Removing Node %s from Controller'),
    });
  }

  start() {
    this.running = true;
    this.monitor();
    this.timer = setInterval(() => this.monitor(), this.ctx.durations.nodeMonitorPeriodMs);
  }

  stop() {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.queue?.stop();
  }

  /** recordNodeEvent: the controller's first sight of a node (also at its own start) and its end */
  private nodeEvent(n: k8s.V1Node, reason: string, what: string) {
    const name = n.metadata!.name!;
    const subject = { kind: 'Node', apiVersion: 'v1', metadata: { name, uid: n.metadata?.uid } };
    const message = `Node ${name} event: ${what.replace('%s', name)}`;
    void this.ctx.events.record(COMPONENT, subject, 'Normal', reason, message);
  }

  private lease(name: string) {
    return this.ctx.informers.leases.get(name, LEASE_NAMESPACE);
  }

  private silent(node: k8s.V1Node, lease: k8s.V1Lease | undefined, nowMs: number): boolean {
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const heard = lastHeardMs(
      ready?.lastHeartbeatTime,
      lease?.spec?.renewTime,
      node.metadata?.creationTimestamp,
    );
    return isSilent(heard, nowMs, this.ctx.durations.nodeMonitorGracePeriodMs);
  }

  /** One monitoring pass: judge the zones (with silent nodes counted as Unknown), then each node. */
  private monitor() {
    const nodes = this.ctx.informers.nodes.list();
    const now = Date.now();
    this.modeFor = noExecuteModes(
      nodes.map((n) => ({
        zone: zoneKey(n.metadata?.labels),
        ready: this.silent(n, this.lease(n.metadata!.name!), now) ? 'Unknown' : nodeReady(n),
        excluded: LABEL_EXCLUDE_DISRUPTION in (n.metadata?.labels ?? {}),
      })),
    );
    for (const n of nodes) this.queue.add(n.metadata!.name!);
  }

  private async sync(name: string) {
    let node = this.ctx.informers.nodes.get(name);
    if (!node) return;
    const now = Date.now();
    if (this.silent(node, this.lease(name), now)) node = await this.markUnknown(node, now);
    if (!node) return;
    await this.reconcileTaints(node, now);
    if (nodeReady(node) === 'Unknown') await this.markPodsNotReady(node, now);
  }

  private async markUnknown(cached: k8s.V1Node, now: number): Promise<k8s.V1Node | undefined> {
    const { changed } = markConditionsUnknown(
      cached.status?.conditions,
      now,
      cached.metadata?.creationTimestamp,
    );
    if (!changed) return cached;
    // confirm with fresh reads: a lagging watch must never make a live kubelet look silent
    const c = this.ctx.clients;
    const name = cached.metadata!.name!;
    const node = await c.core
      .readNode({ name })
      .catch((e) => (statusCode(e) === 404 ? undefined : Promise.reject(e)));
    if (!node) return undefined;
    const lease = await c.coordination
      .readNamespacedLease({ name, namespace: LEASE_NAMESPACE })
      .catch((e) => (statusCode(e) === 404 ? undefined : Promise.reject(e)));
    if (!this.silent(node, lease, now)) return node;
    const next = markConditionsUnknown(node.status?.conditions, now, node.metadata?.creationTimestamp);
    if (!next.changed) return node;
    const wasReady = nodeReady(node) === 'True';
    const updated = await c.core.patchNodeStatus(
      {
        name,
        body: {
          metadata: { resourceVersion: node.metadata?.resourceVersion },
          status: { conditions: next.conditions },
        },
      },
      mergePatch,
    );
    this.ctx.log(this.name, `node ${name}: kubelet silent, conditions set to Unknown`);
    if (wasReady) {
      const subject = { kind: 'Node', apiVersion: 'v1', metadata: { name, uid: node.metadata?.uid } };
      void this.ctx.events.record(
        COMPONENT,
        subject,
        'Normal',
        'NodeNotReady',
        `Node ${name} status is now: NodeNotReady`,
      );
    }
    return updated;
  }

  /**
   * The controller's taints in line with the node's conditions. The first try writes on the
   * cached node; a conflict (the kubelet posted status since, or the cache is behind) reads
   * the node afresh and judges again from what it now says, as RetryOnConflict does.
   */
  private async reconcileTaints(cached: k8s.V1Node, now: number) {
    let node: k8s.V1Node | undefined = cached;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.writeTaints(node, now);
      } catch (err) {
        if (statusCode(err) !== 409 || attempt >= TAINT_TRIES) throw err;
      }
      await sleep(TAINT_RETRY_MS * (1 + Math.random()));
      node = await this.ctx.clients.core
        .readNode({ name: cached.metadata!.name! })
        .catch((e) => (statusCode(e) === 404 ? undefined : Promise.reject(e)));
      if (!node) return;
    }
  }

  private async writeTaints(node: k8s.V1Node, now: number) {
    const mode = this.modeFor(zoneKey(node.metadata?.labels));
    const taints = reconcileNodeTaints(
      node.spec?.taints,
      node.status?.conditions,
      !!node.spec?.unschedulable,
      mode,
      now,
    );
    if (sameTaintSet(taints, node.spec?.taints)) return;
    // one write per step, as kube-controller-manager makes them: watchers see the same order
    let rv = node.metadata?.resourceVersion;
    for (const step of taintWrites(node.spec?.taints, taints)) {
      const written = await this.ctx.clients.core.patchNode(
        { name: node.metadata!.name!, body: { metadata: { resourceVersion: rv }, spec: { taints: step } } },
        mergePatch,
      );
      rv = written.metadata?.resourceVersion;
    }
  }

  /** MarkPodsNotReady: nobody can vouch for the pods of a node that went silent. */
  private async markPodsNotReady(node: k8s.V1Node, now: number) {
    const nodeName = node.metadata!.name!;
    let failed: unknown;
    for (const key of this.podsByNode.keys(nodeName)) {
      const { namespace, name } = splitKey(key);
      const pod = this.ctx.informers.pods.get(name, namespace);
      const ready = pod && podCondition(pod, 'Ready');
      if (!pod || pod.spec?.nodeName !== nodeName || ready?.status !== 'True') continue;
      const { conditions } = setPodCondition(
        pod.status?.conditions,
        { type: 'Ready', status: 'False', reason: ready.reason, message: ready.message },
        now,
      );
      try {
        await writePodStatus(this.ctx.clients, pod, { conditions });
        void this.ctx.events.record(
          COMPONENT,
          podSubject(pod),
          'Warning',
          'NodeNotReady',
          'Node is not ready',
        );
      } catch (err) {
        if (statusCode(err) !== 404) failed = err;
      }
    }
    if (failed) throw failed;
  }
}
