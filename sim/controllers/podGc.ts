// Stand-in for the pod garbage collector, the one controller allowed to force delete pods,
// and only where the pod's node can no longer run anything: terminating pods on a NotReady
// node that carries node.kubernetes.io/out-of-service (someone confirmed it is down),
// pods bound to a node that no longer exists (node deletion confirms it), terminating pods
// that were never scheduled, and, optionally, finished pods beyond a threshold.
import type * as k8s from '@kubernetes/client-node';
import { type PodCondition, setPodCondition, toMillis } from '../../lib/kube/conditions.js';
import { errorText, writePodStatus } from './pods.js';
import { type Controller, type ControllerContext, statusCode } from './runtime/context.js';
import { hasTaint, isTerminal, nodeReady, podKey, TAINT_OUT_OF_SERVICE } from './runtime/conventions.js';

export interface PodGcOptions {
  /** terminated-pod-gc-threshold: keep at most this many finished pods (0 = no limit) */
  terminatedPodThreshold?: number;
  /** how long a pod's node must be missing from the cache before a live check (default 2x nodeMonitorPeriod) */
  quarantineMs?: number;
}

const ORPHAN_CONDITION = {
  type: 'DisruptionTarget',
  status: 'True',
  reason: 'DeletionByPodGC',
  message: 'PodGC: node no longer exists',
};

const evicted = (p: k8s.V1Pod) => p.status?.phase === 'Failed' && p.status?.reason === 'Evicted';

// byEvictionAndCreationTimestamp: evicted pods first, then oldest, then by name
function gcOrder(a: k8s.V1Pod, b: k8s.V1Pod): number {
  if (evicted(a) !== evicted(b)) return evicted(a) ? -1 : 1;
  const ta = toMillis(a.metadata?.creationTimestamp) ?? 0;
  const tb = toMillis(b.metadata?.creationTimestamp) ?? 0;
  return ta - tb || (a.metadata!.name! < b.metadata!.name! ? -1 : 1);
}

export class PodGcController implements Controller {
  readonly name = 'pod-gc';
  private ctx!: ControllerContext;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** node name -> when pods bound to it were first seen without the node */
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly opts: PodGcOptions = {}) {}

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    void ctx.informers.pods;
    void ctx.informers.nodes;
  }

  start() {
    this.timer = setInterval(() => void this.sweep(), this.ctx.durations.podGcIntervalMs);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sweep() {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const pods = this.ctx.informers.pods.list();
      await this.gcTerminated(pods);
      await this.gcOutOfService(pods);
      await this.gcOrphaned(pods);
      for (const p of pods.filter((x) => x.metadata?.deletionTimestamp && !x.spec?.nodeName))
        await this.forceDelete(p);
    } catch (err) {
      this.ctx.log(this.name, `sweep failed: ${errorText(err)}`);
    } finally {
      this.sweeping = false;
    }
  }

  private async gcTerminated(pods: k8s.V1Pod[]) {
    const threshold = this.opts.terminatedPodThreshold ?? 0;
    if (threshold <= 0) return;
    const finished = pods.filter(isTerminal);
    const excess = finished.length - threshold;
    if (excess <= 0) return;
    for (const p of finished.sort(gcOrder).slice(0, excess)) await this.forceDelete(p);
  }

  /** gcTerminating: a NotReady node tainted out-of-service is confirmed down by someone. */
  private async gcOutOfService(pods: k8s.V1Pod[]) {
    const nodes = this.ctx.informers.nodes;
    const doomed = pods.filter((p) => {
      const node = p.metadata?.deletionTimestamp && p.spec?.nodeName ? nodes.get(p.spec.nodeName) : undefined;
      return node && nodeReady(node) !== 'True' && hasTaint(node, TAINT_OUT_OF_SERVICE);
    });
    for (const p of doomed.sort(gcOrder)) await this.forceDelete(p);
  }

  /** gcOrphaned: node deletion confirms a permanent partition, after a quarantine and a live check. */
  private async gcOrphaned(pods: k8s.V1Pod[]) {
    const nodes = this.ctx.informers.nodes;
    const now = Date.now();
    const quarantine = this.opts.quarantineMs ?? 2 * this.ctx.durations.nodeMonitorPeriodMs;
    const missing = new Set(pods.map((p) => p.spec?.nodeName).filter((n) => n && !nodes.get(n)) as string[]);
    for (const n of this.missingSince.keys()) if (!missing.has(n)) this.missingSince.delete(n);
    for (const n of missing) {
      const since = this.missingSince.get(n) ?? now;
      this.missingSince.set(n, since);
      if (now - since < quarantine || (await this.nodeExists(n))) continue;
      const orphans = pods.filter((p) => p.spec?.nodeName === n);
      for (const p of orphans) await this.forceDelete(p, ORPHAN_CONDITION);
      this.missingSince.delete(n);
    }
  }

  private async nodeExists(name: string): Promise<boolean> {
    try {
      await this.ctx.clients.core.readNode({ name });
      return true;
    } catch (err) {
      if (statusCode(err) === 404) return false;
      throw err;
    }
  }

  /** markFailedAndDeletePodWithCondition: phase Failed first, as no kubelet will set it. */
  private async forceDelete(pod: k8s.V1Pod, condition?: Omit<PodCondition, 'lastTransitionTime'>) {
    const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
    this.ctx.log(this.name, `force deleting pod ${podKey(pod)}`);
    try {
      if (!isTerminal(pod)) {
        const conditions = condition
          ? setPodCondition(pod.status?.conditions, condition, Date.now()).conditions
          : undefined;
        await writePodStatus(this.ctx.clients, pod, {
          phase: 'Failed',
          ...(conditions ? { conditions } : {}),
        });
      }
      // uid precondition: never remove a same-named successor of the pod we judged
      await this.ctx.clients.core.deleteNamespacedPod({
        name,
        namespace,
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0, preconditions: { uid } },
      });
    } catch (err) {
      // gone already, or changed since we looked: the next sweep decides again
      if (![404, 409].includes(statusCode(err)))
        this.ctx.log(this.name, `force deleting ${podKey(pod)} failed: ${errorText(err)}`);
    }
  }
}
