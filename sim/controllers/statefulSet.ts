// StatefulSet controller (kube-controller-manager's, simplified). Pods are <set>-<n>,
// each with its own PVCs, created in order (OrderedReady) or all at once (Parallel).
// At most one pod per identity: an ordinal gets a new pod only after the old pod object
// is gone from the API; a terminating pod keeps its identity (seed 000). The unique
// pod name makes the API itself enforce this even when our cache is behind: a create
// for a name that still exists fails with 409 AlreadyExists.
import type * as k8s from '@kubernetes/client-node';
import { templateHash } from '../../lib/workloads/hash.js';
import {
  isControlledBy,
  isRunningAndReady,
  isAvailable,
  isTerminal,
  isTerminating,
  nextAvailableIn,
} from '../../lib/workloads/pods.js';
import {
  ordinalOf,
  planStatefulSet,
  type ReplicaView,
  type SetStep,
  statefulSetCounts,
} from '../rules/workloads/statefulSet.js';
import { revisionName, statefulSetClaims, statefulSetPod } from '../rules/workloads/statefulSetObjects.js';
import type { ControllerContext } from './runtime/context.js';
import { LABEL_REVISION_HASH } from './runtime/conventions.js';
import { keyOf, splitKey, tolerate, WorkloadController } from './workloadController.js';

const COMPONENT = 'statefulset-controller';
type Sts = k8s.V1StatefulSet;

export class StatefulSetController extends WorkloadController {
  readonly name = 'statefulset';
  /** templates by revision name: recreating a pod below the partition needs the old one */
  private readonly revisions = new Map<string, k8s.V1PodTemplateSpec>();

  protected watch(ctx: ControllerContext) {
    const { statefulSets, pods, pvcs } = ctx.informers;
    statefulSets.on({
      add: (s) => this.enqueue(keyOf(s)),
      update: (s) => this.enqueue(keyOf(s)),
      delete: (s) => this.enqueue(keyOf(s)),
    });
    const owner = (p: k8s.V1Pod) => {
      const ref = p.metadata?.ownerReferences?.find((r) => r.controller && r.kind === 'StatefulSet');
      if (ref) this.enqueue(`${p.metadata?.namespace}/${ref.name}`);
    };
    pods.on({ add: owner, update: owner, delete: owner });
    void pvcs; // claims are read from this cache before creating them
  }

  protected async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const set = this.ctx.informers.statefulSets.get(name, namespace);
    if (!set) return;
    const updateRevision = revisionName(name, templateHash(set.spec?.template, set.status?.collisionCount));
    this.revisions.set(updateRevision, set.spec!.template);
    const currentRevision = set.status?.currentRevision || updateRevision;
    const minReady = set.spec?.minReadySeconds ?? 0;
    const now = Date.now();
    const pods = this.ctx.informers.pods
      .list(namespace)
      .filter(
        (p) => isControlledBy(p, set.metadata?.uid) && ordinalOf(name, p.metadata!.name!) !== undefined,
      );
    const views = pods.map((p) => replicaView(name, p, minReady, now));
    const onDelete = set.spec?.updateStrategy?.type === 'OnDelete';
    if (!isTerminating(set)) {
      const plan = planStatefulSet({
        replicas: set.spec?.replicas ?? 1,
        parallel: set.spec?.podManagementPolicy === 'Parallel',
        onDelete,
        partition: set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0,
        currentRevision,
        updateRevision,
        pods: views,
      });
      if (plan.blockedBy) this.ctx.log(this.name, `${key}: ${plan.blockedBy}`);
      for (const step of plan.steps) if (!(await this.apply(set, step, updateRevision))) break;
    }
    await this.writeStatus(set, statefulSetCounts(views, currentRevision, updateRevision, onDelete));
    const wake = nextAvailableIn(pods, minReady, now);
    if (wake !== undefined) this.enqueue(key, wake);
  }

  /** false: stop this pass (the cache is behind; an informer event will bring us back) */
  private async apply(set: Sts, step: SetStep, updateRevision: string): Promise<boolean> {
    if (step.kind === 'create') return this.createReplica(set, step.ordinal, step.revision, updateRevision);
    const { namespace, name: setName } = set.metadata as { namespace: string; name: string };
    const pod = this.ctx.informers.pods.get(step.name, namespace);
    // preconditions: never delete a newer incarnation of the same name by mistake
    const deleted = await tolerate(404, () =>
      this.ctx.clients.core.deleteNamespacedPod({
        name: step.name,
        namespace,
        body: { preconditions: { uid: pod?.metadata?.uid } },
      }),
    );
    if (!deleted) return false;
    if (step.reason === 'finished')
      this.event(
        set,
        'Warning',
        'RecreatingFailedPod',
        `StatefulSet ${namespace}/${setName} is recreating failed Pod ${step.name}`,
      );
    else
      this.event(
        set,
        'Normal',
        'SuccessfulDelete',
        `delete Pod ${step.name} in StatefulSet ${setName} successful`,
      );
    return true;
  }

  private event(set: Sts, type: 'Normal' | 'Warning', reason: string, message: string) {
    void this.ctx.events.record(
      COMPONENT,
      { kind: 'StatefulSet', apiVersion: 'apps/v1', ...set },
      type,
      reason,
      message,
    );
  }

  private async createReplica(set: Sts, ordinal: number, revision: string, updateRevision: string) {
    if (!(await this.ensureClaims(set, ordinal))) return false;
    // without the old template (lost on restart) a pod can only be made at the new revision
    const template = this.revisions.get(revision);
    const pod = template
      ? statefulSetPod(set, ordinal, revision, template)
      : statefulSetPod(set, ordinal, updateRevision, set.spec!.template);
    const namespace = set.metadata!.namespace!;
    const created = await tolerate(409, () =>
      this.ctx.clients.core.createNamespacedPod({ namespace, body: pod }),
    );
    if (created)
      this.event(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Pod ${pod.metadata!.name} in StatefulSet ${set.metadata!.name} successful`,
      );
    return created;
  }

  /** Claims come before the pod; a claim still being deleted blocks the ordinal. */
  private async ensureClaims(set: Sts, ordinal: number): Promise<boolean> {
    const namespace = set.metadata!.namespace!;
    for (const claim of statefulSetClaims(set, ordinal)) {
      const existing = this.ctx.informers.pvcs.get(claim.metadata!.name!, namespace);
      if (existing && isTerminating(existing)) {
        this.enqueue(keyOf(set), 1000);
        return false;
      }
      if (existing) continue;
      const created = await tolerate(409, () =>
        this.ctx.clients.core.createNamespacedPersistentVolumeClaim({ namespace, body: claim }),
      );
      const podName = `${set.metadata!.name}-${ordinal}`;
      if (created)
        this.event(
          set,
          'Normal',
          'SuccessfulCreate',
          `create Claim ${claim.metadata!.name} Pod ${podName} in StatefulSet ${set.metadata!.name} success`,
        );
    }
    return true;
  }

  private async writeStatus(set: Sts, counts: ReturnType<typeof statefulSetCounts>) {
    const status: k8s.V1StatefulSetStatus = {
      ...set.status,
      observedGeneration: set.metadata?.generation,
      ...counts,
    };
    if (sameStatus(set.status, status)) return;
    const { name, namespace } = set.metadata as { name: string; namespace: string };
    await this.ctx.clients.apps.replaceNamespacedStatefulSetStatus({
      name,
      namespace,
      body: { ...set, status },
    });
  }
}

function replicaView(set: string, p: k8s.V1Pod, minReady: number, now: number): ReplicaView {
  const ready = isRunningAndReady(p);
  return {
    ordinal: ordinalOf(set, p.metadata!.name!)!,
    name: p.metadata!.name!,
    revision: p.metadata?.labels?.[LABEL_REVISION_HASH] ?? '',
    terminating: isTerminating(p),
    finished: isTerminal(p),
    ready,
    available: ready && isAvailable(p, minReady, now),
  };
}

const FIELDS = [
  'observedGeneration',
  'replicas',
  'readyReplicas',
  'availableReplicas',
  'currentReplicas',
  'updatedReplicas',
  'currentRevision',
  'updateRevision',
] as const;

function sameStatus(a: k8s.V1StatefulSetStatus | undefined, b: k8s.V1StatefulSetStatus): boolean {
  return FIELDS.every((f) => (a?.[f] ?? 0) === (b[f] ?? 0));
}
