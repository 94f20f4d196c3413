// Stand-in for kube-scheduler: binds pending pods to nodes through the Binding API.
// Filters as the default plugins do (cordon, taints, node selector/affinity, pods/CPU/
// memory against allocatable, PV node affinity and WaitForFirstConsumer topology), spreads
// by pod count, and reports failures as kube-scheduler does: PodScheduled=False
// (Unschedulable) plus a FailedScheduling event, then retries on cluster changes and with
// backoff. Pure decisions live in lib/kube/scheduling.ts.
import type * as k8s from '@kubernetes/client-node';
import { podCondition, setPodCondition } from '../../lib/kube/conditions.js';
import {
  chooseNode,
  feasibleNodesToFind,
  fitErrorMessage,
  type NodeView,
  type PodDemand,
  unfitReasons,
  type VolumeConstraint,
} from '../rules/kube/scheduling.js';
import { podRequests } from '../../lib/kube/resources.js';
import { errorText, podSubject, splitKey, writePodStatus } from './pods.js';
import { countsOnNode, NodeUsage, NodeViews } from './schedulerCache.js';
import { type Controller, type ControllerContext, statusCode } from './runtime/context.js';
import { isTerminal, podKey } from './runtime/conventions.js';
import { mergePatch } from './runtime/patches.js';
import { WorkQueue } from './runtime/queue.js';

export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const COMPONENT = 'default-scheduler';
/** cluster changes are gathered this long before waiting pods are tried again */
const RETRY_COALESCE_MS = 200;
/** waiting pods tried again per gathered change; the others keep their backoff timers */
const RETRY_BATCH = 200;

export interface SchedulerOptions {
  schedulerName?: string;
  /** kube-scheduler's podInitialBackoffDuration / podMaxBackoffDuration */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** pods decided and bound in parallel (decisions themselves never interleave) */
  concurrency?: number;
}

interface VolumePlan {
  /** a problem with the pod's claims that no node can fix */
  preFilter?: string;
  constraints: VolumeConstraint[];
  /** unbound WaitForFirstConsumer claims: get the selected-node annotation, then wait */
  provision: k8s.V1PersistentVolumeClaim[];
  /** a node already selected for one of the claims */
  preferred?: string;
}

export class Scheduler implements Controller {
  readonly name = 'scheduler';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private readonly usage = new NodeUsage();
  private readonly nodes = new NodeViews(this.usage);
  private retryTimer: NodeJS.Timeout | undefined;
  /** waiting pods the current round of retries has yet to reach */
  private retryLeft = 0;
  private readonly pending = new Set<string>();
  private readonly attempts = new Map<string, number>();
  /** when each waiting pod was last tried, least recently tried first */
  private readonly lastTried = new Map<string, number>();
  private running = false;
  private nextStart = 0;
  /** bumped whenever the cluster changes in a way that may let waiting pods fit */
  private clusterChanges = 0;
  private readonly concurrency: number;
  private readonly schedulerName: string;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(opts: SchedulerOptions = {}) {
    this.schedulerName = opts.schedulerName ?? COMPONENT;
    this.initialBackoffMs = opts.initialBackoffMs ?? 1_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    // bindings are round trips: kube-scheduler binds asynchronously, many at a time
    this.concurrency = opts.concurrency ?? 32;
  }

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue(
      (key) => this.schedule(key),
      (key, err) => ctx.log(this.name, `scheduling ${key} failed: ${errorText(err)}`),
      this.concurrency,
    );
    const inf = ctx.informers;
    inf.pods.on({
      add: (p) => this.podSeen(p),
      update: (p, old) => this.podSeen(p, old),
      delete: (p) => this.podGone(p),
    });
    // heartbeats change nothing the filters read: only other changes wake waiting pods
    const nodeChanged = (n: k8s.V1Node) => this.nodes.upsert(n) && this.retryPending();
    inf.nodes.on({
      add: nodeChanged,
      update: nodeChanged,
      delete: (n) => this.nodes.remove(n.metadata!.name!),
    });
    // a claim bound or provisioned, a PV or class created: volume checks may now pass
    const retry = { add: () => this.retryPending(), update: () => this.retryPending() };
    inf.pvcs.on(retry);
    inf.pvs.on(retry);
    inf.storageClasses.on(retry);
  }

  start() {
    this.running = true;
    for (const key of this.pending) this.queue.add(key);
  }

  stop() {
    this.running = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.queue?.stop();
  }

  private needsScheduling(p: k8s.V1Pod): boolean {
    return (
      !p.spec?.nodeName &&
      !p.metadata?.deletionTimestamp &&
      (p.spec?.schedulerName ?? COMPONENT) === this.schedulerName &&
      !isTerminal(p)
    );
  }

  private podSeen(p: k8s.V1Pod, old?: k8s.V1Pod) {
    const key = podKey(p);
    this.usage.observe(p);
    if (!this.needsScheduling(p)) {
      this.pending.delete(key);
      this.forgetAttempts(key);
    } else {
      this.pending.add(key);
      // status writes (ours included) do not change the decision; spec and labels can
      const changed =
        !old ||
        JSON.stringify([old.spec, old.metadata?.labels]) !== JSON.stringify([p.spec, p.metadata?.labels]);
      if (changed && this.running) this.queue.add(key);
    }
    // a pod that finished frees its node's capacity
    if (old && countsOnNode(old) && !countsOnNode(p)) this.retryPending();
  }

  private podGone(p: k8s.V1Pod) {
    const key = podKey(p);
    this.usage.forget(key);
    this.pending.delete(key);
    this.forgetAttempts(key);
    if (countsOnNode(p)) this.retryPending();
  }

  /**
   * Something changed that may let a waiting pod fit: try waiting pods again soon. Changes
   * are gathered (5000 nodes turning Ready are not 5000 passes over every waiting pod), a
   * pod tried within the initial backoff is left to its timer, and a pass takes a bounded
   * batch, least recently tried first; the rest follow in the next pass.
   */
  private retryPending() {
    this.clusterChanges++;
    this.retryLeft = this.lastTried.size;
    if (!this.running || this.retryTimer) return;
    this.retryTimer = setTimeout(() => this.retryBatch(), RETRY_COALESCE_MS);
  }

  private retryBatch() {
    this.retryTimer = undefined;
    if (!this.running) return;
    const now = Date.now();
    const due: string[] = [];
    let visited = 0;
    for (const [key, at] of this.lastTried) {
      if (visited >= this.retryLeft || due.length >= RETRY_BATCH) break;
      visited++;
      if (now - at >= this.initialBackoffMs) due.push(key);
    }
    for (const key of due) {
      // to the back of the line, so the next pass starts with pods this one did not reach
      this.lastTried.delete(key);
      this.lastTried.set(key, now);
      this.queue.add(key);
    }
    this.retryLeft -= visited;
    if (this.retryLeft > 0 && visited > 0)
      this.retryTimer = setTimeout(() => this.retryBatch(), RETRY_COALESCE_MS);
  }

  private forgetAttempts(key: string) {
    this.attempts.delete(key);
    this.lastTried.delete(key);
  }

  /**
   * Back off, unless the cluster changed while the attempt ran (the change may be what the
   * pod was waiting for, and its retry found the pod still in flight).
   */
  private retryLater(key: string, changesAtStart: number) {
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, n);
    this.lastTried.delete(key);
    this.lastTried.set(key, Date.now());
    const backoff = Math.min(this.initialBackoffMs * 2 ** (n - 1), this.maxBackoffMs);
    // not at once: while 5000 nodes turn Ready the cluster changes during every attempt
    const changed = this.clusterChanges !== changesAtStart;
    this.queue.addAfter(key, changed ? Math.min(backoff, this.initialBackoffMs) : backoff);
  }

  private async schedule(key: string) {
    const { namespace, name } = splitKey(key);
    const pod = this.ctx.informers.pods.get(name, namespace);
    if (!pod || !this.needsScheduling(pod)) return;
    const changes = this.clusterChanges;
    const volumes = this.volumePlan(pod);
    const demand: PodDemand = {
      requests: podRequests(pod.spec),
      nodeSelector: pod.spec?.nodeSelector,
      requiredAffinity: pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      tolerations: pod.spec?.tolerations,
      volumes: volumes.constraints,
    };
    const { feasible, reasons } = volumes.preFilter
      ? { feasible: [], reasons: [] }
      : this.filter(demand, this.nodes.list());
    const chosen = chooseNode(feasible, volumes.preferred);
    if (!chosen) {
      this.retryLater(key, changes);
      return this.unschedulable(pod, fitErrorMessage(this.nodes.size, reasons, volumes.preFilter));
    }
    if (volumes.provision.length) {
      // the provisioner creates the volume in the chosen node's topology; once the claim
      // is bound the pod follows it there
      this.retryLater(key, changes);
      // count the pod on that node already, so the next pods spread instead of piling up
      // on the same "emptiest" node while their volumes are being provisioned
      this.usage.assume(pod, chosen.name);
      return this.selectNode(volumes.provision, chosen.name);
    }
    // assumed before the (awaited) binding, so a parallel decision sees the node as used
    this.usage.assume(pod, chosen.name);
    await this.bind(pod, chosen.name);
  }

  /**
   * Filter nodes, round-robin from where the last search stopped; a large cluster is
   * searched only until enough feasible nodes are found, as kube-scheduler does.
   */
  private filter(demand: PodDemand, nodes: NodeView[]) {
    const reasons: string[][] = [];
    const feasible: NodeView[] = [];
    const enough = feasibleNodesToFind(nodes.length);
    let i = 0;
    for (; i < nodes.length && feasible.length < enough; i++) {
      const view = nodes[(this.nextStart + i) % nodes.length];
      const why = unfitReasons(demand, view);
      if (why.length) reasons.push(why);
      else feasible.push(view);
    }
    this.nextStart = nodes.length ? (this.nextStart + i) % nodes.length : 0;
    return { feasible, reasons };
  }

  private volumePlan(pod: k8s.V1Pod): VolumePlan {
    const inf = this.ctx.informers;
    const plan: VolumePlan = { constraints: [], provision: [] };
    for (const v of pod.spec?.volumes ?? []) {
      const claimName = v.persistentVolumeClaim?.claimName;
      if (!claimName) continue;
      const pvc = inf.pvcs.get(claimName, pod.metadata?.namespace);
      if (!pvc) return { ...plan, preFilter: `persistentvolumeclaim "${claimName}" not found` };
      if (pvc.metadata?.deletionTimestamp)
        return { ...plan, preFilter: `persistentvolumeclaim "${claimName}" is being deleted` };
      plan.preferred ??= pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (pvc.spec?.volumeName) {
        const pv = inf.pvs.get(pvc.spec.volumeName);
        plan.constraints.push(
          pv ? { kind: 'bound', required: pv.spec?.nodeAffinity?.required } : { kind: 'missingPv' },
        );
        continue;
      }
      const className =
        pvc.spec?.storageClassName ?? pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
      const sc = className ? inf.storageClasses.get(className) : undefined;
      if (className && !sc)
        return { ...plan, preFilter: `storageclass.storage.k8s.io "${className}" not found` };
      if (sc?.volumeBindingMode !== 'WaitForFirstConsumer')
        return { ...plan, preFilter: 'pod has unbound immediate PersistentVolumeClaims' };
      plan.constraints.push({ kind: 'provision', allowedTopologies: sc.allowedTopologies });
      plan.provision.push(pvc);
    }
    return plan;
  }

  private async selectNode(claims: k8s.V1PersistentVolumeClaim[], node: string) {
    for (const pvc of claims) {
      if (pvc.metadata?.annotations?.[ANN_SELECTED_NODE] === node) continue;
      await this.ctx.clients.core.patchNamespacedPersistentVolumeClaim(
        {
          name: pvc.metadata!.name!,
          namespace: pvc.metadata!.namespace!,
          body: {
            metadata: {
              resourceVersion: pvc.metadata?.resourceVersion,
              annotations: { [ANN_SELECTED_NODE]: node },
            },
          },
        },
        mergePatch,
      );
    }
  }

  private async bind(pod: k8s.V1Pod, node: string) {
    const { name, namespace } = pod.metadata as { name: string; namespace: string };
    try {
      await this.ctx.clients.core.createNamespacedPodBinding({
        name,
        namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace },
          target: { apiVersion: 'v1', kind: 'Node', name: node },
        },
      });
    } catch (err) {
      this.usage.unassume(podKey(pod));
      // already bound elsewhere, being deleted, or gone: nothing left to do
      if ([404, 409].includes(statusCode(err))) return;
      throw err;
    }
    this.forgetAttempts(podKey(pod));
    const message = `Successfully assigned ${namespace}/${name} to ${node}`;
    void this.ctx.events.record(COMPONENT, podSubject(pod), 'Normal', 'Scheduled', message);
  }

  private async unschedulable(pod: k8s.V1Pod, message: string) {
    const { conditions, changed } = setPodCondition(
      pod.status?.conditions,
      { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message },
      Date.now(),
    );
    if (changed || !podCondition(pod, 'PodScheduled')) {
      // a conflict only means the pod changed meanwhile; the retry will write again
      await writePodStatus(this.ctx.clients, pod, { conditions }).catch((err) => {
        if (statusCode(err) !== 409 && statusCode(err) !== 404) throw err;
      });
    }
    void this.ctx.events.record(COMPONENT, podSubject(pod), 'Warning', 'FailedScheduling', message);
  }
}
