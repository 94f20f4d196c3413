// Stand-in for the disruption controller: keeps each PodDisruptionBudget's status
// (expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed, disruptedPods and the
// DisruptionAllowed condition) current, so that the eviction API can spend the budget.
// The arithmetic lives in lib/kube/disruption.ts.
import type * as k8s from '@kubernetes/client-node';
import {
  podCondition,
  setStatusCondition,
  type StatusCondition,
  wireTime,
} from '../../lib/kube/conditions.js';
import {
  type BudgetPod,
  conditionUpToDate,
  countHealthy,
  disruptionAllowedCondition,
  disruptionsAllowed,
  expectedAndDesired,
  type IntOrString,
  needsScale,
  pruneDisruptedPods,
  sameDisruptedPods,
} from '../../lib/kube/disruption.js';
import { labelSelectorMatches, labelSelectorToString } from '../../lib/kube/labelSelector.js';
import { errorText, podSubject, splitKey } from './pods.js';
import type { Controller, ControllerContext } from './runtime/context.js';
import { controllerOf, podKey } from './runtime/conventions.js';
import { mergePatch } from './runtime/patches.js';
import { WorkQueue } from './runtime/queue.js';

const COMPONENT = 'controllermanager';

type Pdb = k8s.V1PodDisruptionBudget;
interface Status {
  observedGeneration: number;
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
  disruptedPods: Record<string, string>;
  conditions: StatusCondition[];
}

const subject = (pdb: Pdb) => ({ ...pdb, kind: 'PodDisruptionBudget', apiVersion: 'policy/v1' });

export class DisruptionController implements Controller {
  readonly name = 'disruption';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private running = false;

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => ctx.log(this.name, `pdb ${key}: ${errorText(err)}`),
    );
    const inf = ctx.informers;
    inf.pdbs.on({ add: (b) => this.enqueue(b), update: (b) => this.enqueue(b) });
    inf.pods.on({
      add: (p) => this.podChanged(p),
      update: (p, old) => {
        this.podChanged(p);
        if (JSON.stringify(p.metadata?.labels) !== JSON.stringify(old.metadata?.labels)) this.podChanged(old);
      },
      delete: (p) => this.podChanged(p),
    });
    // a scale change moves expectedPods for percentage and maxUnavailable budgets
    for (const workloads of [inf.deployments, inf.replicaSets, inf.statefulSets] as const) {
      (workloads as typeof inf.deployments).on({
        add: (w) => this.namespaceChanged(w.metadata?.namespace),
        update: (w, old) =>
          w.spec?.replicas !== old.spec?.replicas && this.namespaceChanged(w.metadata?.namespace),
        delete: (w) => this.namespaceChanged(w.metadata?.namespace),
      });
    }
  }

  start() {
    this.running = true;
    for (const pdb of this.ctx.informers.pdbs.list()) this.enqueue(pdb);
  }

  stop() {
    this.running = false;
    this.queue?.stop();
  }

  private enqueue(pdb: Pdb) {
    if (this.running) this.queue.add(podKey(pdb));
  }

  private podChanged(p: k8s.V1Pod) {
    for (const pdb of this.ctx.informers.pdbs.list(p.metadata?.namespace))
      if (labelSelectorMatches(pdb.spec?.selector, p.metadata?.labels)) this.enqueue(pdb);
  }

  private namespaceChanged(ns: string | undefined) {
    for (const pdb of this.ctx.informers.pdbs.list(ns)) this.enqueue(pdb);
  }

  private async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const pdb = this.ctx.informers.pdbs.get(name, namespace);
    if (!pdb) return;
    const pods = this.ctx.informers.pods
      .list(namespace)
      .filter((p) => labelSelectorMatches(pdb.spec?.selector, p.metadata?.labels));
    if (pods.length === 0) this.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    let counts: { expectedPods: number; desiredHealthy: number };
    try {
      counts = this.expected(pdb, pods);
    } catch (err) {
      const message = errorText(err);
      this.event(
        pdb,
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${message}`,
      );
      return this.failSafe(pdb, message);
    }
    const now = Date.now();
    const view: BudgetPod[] = pods.map((p) => ({
      name: p.metadata!.name!,
      terminating: !!p.metadata?.deletionTimestamp,
      ready: podCondition(p, 'Ready')?.status === 'True',
    }));
    const disrupted = pruneDisruptedPods(pdb.status?.disruptedPods, view, now);
    for (const podName of disrupted.expired) {
      const pod = pods.find((p) => p.metadata?.name === podName)!;
      const message = `Pod was expected by PDB ${key} to be deleted but it wasn't`;
      void this.ctx.events.record(COMPONENT, podSubject(pod), 'Warning', 'NotDeleted', message);
    }
    const currentHealthy = countHealthy(view, disrupted.kept);
    const allowed = disruptionsAllowed(currentHealthy, counts.desiredHealthy, counts.expectedPods);
    await this.update(
      pdb,
      { ...counts, currentHealthy, disruptionsAllowed: allowed, disruptedPods: disrupted.kept },
      now,
    );
    if (disrupted.recheckAtMs !== undefined) this.queue.addAfter(key, disrupted.recheckAtMs - now);
  }

  private expected(pdb: Pdb, pods: k8s.V1Pod[]) {
    const spec = {
      minAvailable: pdb.spec?.minAvailable as IntOrString | undefined,
      maxUnavailable: pdb.spec?.maxUnavailable as IntOrString | undefined,
    };
    return expectedAndDesired(spec, pods.length, needsScale(spec) ? this.scale(pdb, pods) : 0);
  }

  /**
   * getExpectedScale: the summed replicas of the pods' controllers. Pods without a known
   * controller count as one each (kube-controller-manager would count them as zero and
   * warn; here a budget over bare pods still means something).
   */
  private scale(pdb: Pdb, pods: k8s.V1Pod[]): number {
    const byController = new Map<string, number>();
    let unmanaged = 0;
    for (const pod of pods) {
      const ref = controllerOf(pod);
      const found = ref && this.controllerScale(ref, pod.metadata!.namespace!);
      if (found === undefined) throw new Error(`found no controllers for pod "${pod.metadata?.name}"`);
      if (found === null) unmanaged++;
      else byController.set(found.uid, found.replicas);
    }
    if (unmanaged > 0)
      this.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${labelSelectorToString(pdb.spec?.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    return [...byController.values()].reduce((a, b) => a + b, 0) + unmanaged;
  }

  /** The owning workload's scale; null: no (supported) controller; undefined: controller missing. */
  private controllerScale(
    ref: k8s.V1OwnerReference | undefined | false,
    ns: string,
  ): { uid: string; replicas: number } | null | undefined {
    if (!ref) return null;
    const inf = this.ctx.informers;
    const matches = <T extends k8s.KubernetesObject>(o: T | undefined, r: k8s.V1OwnerReference) =>
      o && o.metadata?.uid === r.uid ? o : undefined;
    if (ref.kind === 'StatefulSet') {
      const sts = matches(inf.statefulSets.get(ref.name, ns), ref);
      return sts && { uid: ref.uid, replicas: sts.spec?.replicas ?? 1 };
    }
    if (ref.kind !== 'ReplicaSet') return null;
    const rs = matches(inf.replicaSets.get(ref.name, ns), ref);
    if (!rs) return undefined;
    const owner = controllerOf(rs);
    if (owner?.kind !== 'Deployment') return { uid: ref.uid, replicas: rs.spec?.replicas ?? 1 };
    const dep = matches(inf.deployments.get(owner.name, ns), owner);
    return dep && { uid: owner.uid, replicas: dep.spec?.replicas ?? 1 };
  }

  private async update(pdb: Pdb, next: Omit<Status, 'observedGeneration' | 'conditions'>, now: number) {
    const s = pdb.status;
    const generation = pdb.metadata?.generation ?? 0;
    const upToDate =
      s?.currentHealthy === next.currentHealthy &&
      s.desiredHealthy === next.desiredHealthy &&
      s.expectedPods === next.expectedPods &&
      s.disruptionsAllowed === next.disruptionsAllowed &&
      sameDisruptedPods(s.disruptedPods, next.disruptedPods) &&
      conditionUpToDate(s.conditions, next.disruptionsAllowed, s.observedGeneration, generation);
    if (upToDate) return;
    const conditions = disruptionAllowedCondition(s?.conditions, next.disruptionsAllowed, generation, now);
    await this.write(pdb, { ...next, observedGeneration: generation, conditions });
  }

  /** failSafe: a budget that cannot be computed allows no disruption. */
  private async failSafe(pdb: Pdb, message: string) {
    const s = pdb.status;
    const observedGeneration = s?.observedGeneration ?? 0;
    const conditions = setStatusCondition(
      s?.conditions,
      { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration },
      Date.now(),
    );
    await this.write(pdb, {
      observedGeneration,
      expectedPods: s?.expectedPods ?? 0,
      currentHealthy: s?.currentHealthy ?? 0,
      desiredHealthy: s?.desiredHealthy ?? 0,
      disruptionsAllowed: 0,
      disruptedPods: Object.fromEntries(
        Object.entries(s?.disruptedPods ?? {}).map(([k, v]) => [k, wireTime(v)!]),
      ),
      conditions,
    });
  }

  private async write(pdb: Pdb, status: Status) {
    // a merge patch merges maps, so pods that left disruptedPods are removed with null
    const gone = Object.keys(pdb.status?.disruptedPods ?? {}).filter((k) => !(k in status.disruptedPods));
    const disruptedPods = { ...status.disruptedPods, ...Object.fromEntries(gone.map((k) => [k, null])) };
    await this.ctx.clients.policy.patchNamespacedPodDisruptionBudgetStatus(
      {
        name: pdb.metadata!.name!,
        namespace: pdb.metadata!.namespace!,
        body: {
          metadata: { resourceVersion: pdb.metadata?.resourceVersion },
          status: { ...status, disruptedPods },
        },
      },
      mergePatch,
    );
  }

  private event(pdb: Pdb, type: 'Normal' | 'Warning', reason: string, message: string) {
    void this.ctx.events.record(COMPONENT, subject(pdb), type, reason, message);
  }
}
