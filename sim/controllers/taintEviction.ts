// Stand-in for the NoExecute taint manager (taint-eviction-controller). A pod on a node
// with a NoExecute taint it does not tolerate is evicted at once; one that tolerates it for
// tolerationSeconds is evicted when that runs out, counted from the taint's timeAdded.
// Eviction marks the pod (DisruptionTarget=True, DeletionByTaintManager) and then deletes
// it gracefully: the kubelet still decides when it is gone. A scheduled eviction is
// cancelled when the taint goes away. Evictions run side by side, as kube-controller-manager
// fires each pod's timer in a goroutine of its own: one deletion the API (or an admission
// webhook) answers slowly never delays another pod's eviction past its deadline.
import type * as k8s from '@kubernetes/client-node';
import { setPodCondition, toMillis } from '../../lib/kube/conditions.js';
import type { Taint } from '../../lib/kube/tolerations.js';
import { noExecutePlan } from '../rules/kube/taintManager.js';
import { errorText, PodsByNode, splitKey, writePodStatus } from './pods.js';
import { type Controller, type ControllerContext, statusCode } from './runtime/context.js';
import { podKey } from './runtime/conventions.js';
import { WorkQueue } from './runtime/queue.js';

const COMPONENT = 'taint-eviction-controller';
/** pods judged and evicted at once (kube-controller-manager: UpdateWorkerSize, and a goroutine per eviction) */
export const EVICTION_WORKERS = 8;

/** emitPodDeletionEvent's reference: namespace and name only, no uid or resourceVersion */
const podRef = (pod: k8s.V1Pod) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: pod.metadata?.name, namespace: pod.metadata?.namespace },
});

const noExecuteTaints = (n: k8s.V1Node | undefined) =>
  JSON.stringify(
    (n?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute').map((t) => [t.key, t.value, t.timeAdded]),
  );

export class TaintEvictionController implements Controller {
  readonly name = 'taint-eviction';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private podsByNode!: PodsByNode;
  private running = false;
  /** pods with an eviction deadline, to announce a cancellation */
  private readonly scheduled = new Map<string, number>();
  /** when a taint was seen to appear (or, without timeAdded, first seen), by node|key|effect */
  private readonly firstSeen = new Map<string, number>();

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => ctx.log(this.name, `pod ${key}: ${errorText(err)}`),
      EVICTION_WORKERS,
    );
    this.podsByNode = new PodsByNode(ctx.informers.pods);
    ctx.informers.pods.on({
      add: (p) => this.enqueue(p),
      update: (p, old) => {
        const moved = p.spec?.nodeName !== old.spec?.nodeName;
        const tolerations = JSON.stringify(p.spec?.tolerations) !== JSON.stringify(old.spec?.tolerations);
        if (moved || tolerations || (!!p.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp))
          this.enqueue(p);
      },
      delete: (p) => this.scheduled.delete(podKey(p)),
    });
    ctx.informers.nodes.on({
      add: (n) => this.nodeChanged(n),
      update: (n, old) => {
        if (noExecuteTaints(n) === noExecuteTaints(old)) return;
        this.noteTaintTimes(n, old);
        this.nodeChanged(n);
      },
      delete: (n) => this.forgetTaintTimes(n.metadata!.name!),
    });
  }

  start() {
    this.running = true;
    for (const name of this.podsByNode.nodes())
      for (const key of this.podsByNode.keys(name)) this.queue.add(key);
  }

  stop() {
    this.running = false;
    this.queue?.stop();
  }

  private enqueue(p: k8s.V1Pod) {
    if (this.running && p.spec?.nodeName) this.queue.add(podKey(p));
  }

  private nodeChanged(n: k8s.V1Node) {
    if (!this.running) return;
    for (const key of this.podsByNode.keys(n.metadata!.name!)) this.queue.add(key);
  }

  /**
   * Remember when NoExecute taints appear. timeAdded has second precision, so a taint seen
   * being added counts from the later of the two: a toleration never runs out early.
   */
  private noteTaintTimes(n: k8s.V1Node, old: k8s.V1Node) {
    const name = n.metadata!.name!;
    const keys = (x: k8s.V1Node) =>
      new Set((x.spec?.taints ?? []).map((t) => `${name}|${t.key}|${t.effect}`));
    const now = keys(n);
    const before = keys(old);
    this.forgetTaintTimes(name, now);
    for (const k of now) if (!before.has(k)) this.firstSeen.set(k, Date.now());
  }

  private forgetTaintTimes(node: string, keep = new Set<string>()) {
    for (const k of this.firstSeen.keys())
      if (k.startsWith(`${node}|`) && !keep.has(k)) this.firstSeen.delete(k);
  }

  private addedAt(node: string, taint: Taint, now: number): number {
    const k = `${node}|${taint.key}|${taint.effect}`;
    if (!this.firstSeen.has(k) && toMillis(taint.timeAdded) === undefined) this.firstSeen.set(k, now);
    return Math.max(toMillis(taint.timeAdded) ?? 0, this.firstSeen.get(k) ?? 0);
  }

  private async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const pod = this.ctx.informers.pods.get(name, namespace);
    const nodeName = pod?.spec?.nodeName;
    const node = nodeName ? this.ctx.informers.nodes.get(nodeName) : undefined;
    if (!pod || !node || pod.metadata?.deletionTimestamp) {
      this.scheduled.delete(key);
      return;
    }
    const now = Date.now();
    const plan = noExecutePlan(node.spec?.taints, pod.spec?.tolerations, now, (t) =>
      this.addedAt(nodeName!, t, now),
    );
    if (plan.action === 'keep') return this.cancel(pod);
    if (plan.action === 'wait') {
      // a wake-up re-checks everything, so an outdated deadline is harmless
      this.scheduled.set(key, plan.atMs);
      this.queue.addAfter(key, plan.atMs - now);
      return;
    }
    await this.evict(pod, now);
  }

  private cancel(pod: k8s.V1Pod) {
    if (!this.scheduled.delete(podKey(pod))) return;
    const message = `Cancelling deletion of Pod ${podKey(pod)}`;
    void this.ctx.events.record(COMPONENT, podRef(pod), 'Normal', 'TaintManagerEviction', message);
  }

  /** addConditionAndDeletePod */
  private async evict(pod: k8s.V1Pod, now: number) {
    const key = podKey(pod);
    this.ctx.log(this.name, `evicting ${key}`);
    const message = `Marking for deletion Pod ${key}`;
    void this.ctx.events.record(COMPONENT, podRef(pod), 'Normal', 'TaintManagerEviction', message);
    const { conditions, changed } = setPodCondition(
      pod.status?.conditions,
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      },
      now,
    );
    try {
      if (changed) await writePodStatus(this.ctx.clients, pod, { conditions });
      // uid precondition: never delete a same-named successor of the pod we judged
      await this.ctx.clients.core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        body: { preconditions: { uid: pod.metadata?.uid } },
      });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
    this.scheduled.delete(key);
  }
}
