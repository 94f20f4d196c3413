// ReplicaSet controller (kube-controller-manager's, simplified). Availability first
// (seed 000, seed 003 step 6): only active pods count (owned, not terminating, not
// finished), so a replacement is created as soon as a pod starts terminating, while
// the old one may still be running. Expectations keep a stale cache from making us
// create or delete twice.
import type * as k8s from '@kubernetes/client-node';
import { Expectations } from '../rules/workloads/expectations.js';
import {
  controllerRef,
  isActive,
  isControlledBy,
  isTerminating,
  nextAvailableIn,
  ownerReferenceTo,
} from '../../lib/workloads/pods.js';
import { podsToDelete, type ReplicaCounts, replicaSetCounts } from '../rules/workloads/replicaSet.js';
import type { ControllerContext } from './runtime/context.js';
import { podKey } from './runtime/conventions.js';
import { keyOf, splitKey, tolerate, WorkloadController } from './workloadController.js';

const COMPONENT = 'replicaset-controller';
/** the real controller's burstReplicas: at most this many creates/deletes per pass */
const BURST = 500;
type RS = k8s.V1ReplicaSet;

export class ReplicaSetController extends WorkloadController {
  readonly name = 'replicaset';
  private readonly expectations = new Expectations();

  protected watch(ctx: ControllerContext) {
    ctx.informers.replicaSets.on({
      add: (rs) => this.enqueue(keyOf(rs)),
      update: (rs) => this.enqueue(keyOf(rs)),
      delete: (rs) => {
        this.expectations.forget(keyOf(rs));
        this.enqueue(keyOf(rs));
      },
    });
    ctx.informers.pods.on({
      add: (p) => {
        const rs = ownerKey(p);
        if (rs) this.expectations.creationObserved(rs);
        this.enqueue(rs);
      },
      update: (p, old) => {
        const rs = ownerKey(p);
        if (rs && isTerminating(p) && !isTerminating(old)) this.expectations.deletionObserved(rs, podKey(p));
        this.enqueue(rs);
      },
      delete: (p) => {
        const rs = ownerKey(p);
        if (rs) this.expectations.deletionObserved(rs, podKey(p));
        this.enqueue(rs);
      },
    });
  }

  protected async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const rs = this.ctx.informers.replicaSets.get(name, namespace);
    if (!rs) return;
    const pods = this.ctx.informers.pods.list(namespace).filter((p) => isControlledBy(p, rs.metadata?.uid));
    if (!isTerminating(rs)) {
      if (this.expectations.satisfied(key)) await this.manage(key, rs, pods.filter(isActive));
      else this.enqueue(key, this.expectations.expiresIn(key));
    }
    const minReady = rs.spec?.minReadySeconds ?? 0;
    const now = Date.now();
    await this.writeStatus(
      rs,
      replicaSetCounts(pods, rs.spec?.template?.metadata?.labels ?? {}, minReady, now),
    );
    const wake = nextAvailableIn(pods.filter(isActive), minReady, now);
    if (wake !== undefined) this.enqueue(key, wake);
  }

  private async manage(key: string, rs: RS, active: k8s.V1Pod[]) {
    const diff = active.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) await this.createPods(key, rs, Math.min(-diff, BURST));
    else if (diff > 0) await this.deletePods(key, rs, podsToDelete(active, Math.min(diff, BURST)));
  }

  /**
   * slowStartBatch: 1, 2, 4, ... creations at a time, stopping at the first failure, so
   * a set that cannot create pods (quota, admission) fails with one request, not 500.
   */
  private async createPods(key: string, rs: RS, n: number) {
    this.expectations.expectCreations(key, n);
    const namespace = rs.metadata!.namespace!;
    let left = n;
    for (let batch = 1; left > 0; batch *= 2) {
      const size = Math.min(batch, left);
      left -= size;
      const results = await Promise.allSettled(
        Array.from({ length: size }, () =>
          this.ctx.clients.core.createNamespacedPod({ namespace, body: podFor(rs) }),
        ),
      );
      for (const r of results)
        if (r.status === 'fulfilled')
          this.event(rs, 'SuccessfulCreate', `Created pod: ${r.value.metadata?.name}`);
      const failed = results.filter((r) => r.status === 'rejected');
      if (!failed.length) continue;
      // creations that failed or were never tried will not show up in the cache
      for (let i = 0; i < failed.length + left; i++) this.expectations.creationObserved(key);
      throw failed[0].reason;
    }
  }

  private async deletePods(key: string, rs: RS, victims: k8s.V1Pod[]) {
    this.expectations.expectDeletions(key, victims.map(podKey));
    for (const pod of victims) {
      const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
      try {
        // a graceful delete: the pod's own grace period, only the kubelet removes it
        const gone = !(await tolerate(404, () =>
          this.ctx.clients.core.deleteNamespacedPod({ name, namespace, body: { preconditions: { uid } } }),
        ));
        if (gone) this.expectations.deletionObserved(key, podKey(pod));
        else this.event(rs, 'SuccessfulDelete', `Deleted pod: ${name}`);
      } catch (err) {
        this.expectations.deletionObserved(key, podKey(pod));
        throw err;
      }
    }
  }

  private event(rs: RS, reason: string, message: string) {
    void this.ctx.events.record(
      COMPONENT,
      { kind: 'ReplicaSet', apiVersion: 'apps/v1', ...rs },
      'Normal',
      reason,
      message,
    );
  }

  private async writeStatus(rs: RS, counts: ReplicaCounts) {
    const next: k8s.V1ReplicaSetStatus = {
      ...rs.status,
      ...counts,
      observedGeneration: rs.metadata?.generation,
    };
    const prev = rs.status ?? { replicas: 0 };
    const fields = [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
    ] as const;
    if (fields.every((f) => (prev[f] ?? 0) === (next[f] ?? 0))) return;
    const { name, namespace } = rs.metadata as { name: string; namespace: string };
    await this.ctx.clients.apps.replaceNamespacedReplicaSetStatus({
      name,
      namespace,
      body: { ...rs, status: next },
    });
  }
}

function ownerKey(p: k8s.V1Pod): string | undefined {
  const ref = controllerRef(p);
  return ref?.kind === 'ReplicaSet' ? `${p.metadata?.namespace}/${ref.name}` : undefined;
}

function podFor(rs: RS): k8s.V1Pod {
  const t = rs.spec!.template!;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata!.name}-`,
      namespace: rs.metadata!.namespace,
      labels: { ...(t.metadata?.labels ?? {}) },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
      ownerReferences: [ownerReferenceTo(rs, 'apps/v1', 'ReplicaSet')],
    },
    spec: structuredClone(t.spec!),
  };
}
