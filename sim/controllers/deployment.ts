// Deployment controller (kube-controller-manager's, simplified): one ReplicaSet per pod
// template, named <deployment>-<pod-template-hash>, rolled out with RollingUpdate
// (maxSurge/maxUnavailable) or Recreate. Like the ReplicaSets under it, it is
// availability first: terminating pods do not count, so they never hold a rollout back.
import type * as k8s from '@kubernetes/client-node';
import { deadlineIn, deploymentStatus, isComplete } from '../rules/workloads/deploymentStatus.js';
import { templateHash } from '../../lib/workloads/hash.js';
import { controllerRef, isControlledBy, isTerminal, isTerminating, toMs } from '../../lib/workloads/pods.js';
import {
  ANN_DESIRED,
  ANN_MAX,
  ANN_REVISION,
  newReplicaSet,
  revisionOf,
} from '../rules/workloads/deploymentSets.js';
import {
  fenceposts,
  newSetTarget,
  planRecreate,
  planRolling,
  type RsView,
} from '../../lib/workloads/rollout.js';
import type { ControllerContext } from './runtime/context.js';
import { LABEL_POD_TEMPLATE_HASH } from './runtime/conventions.js';
import { keyOf, splitKey, tolerate, WorkloadController } from './workloadController.js';

const COMPONENT = 'deployment-controller';
type Deploy = k8s.V1Deployment;
type RS = k8s.V1ReplicaSet;

// available is capped at spec: right after a scale-down the set's status may still
// count pods it is about to delete, and counting them would let us remove too many
const view = (rs: RS): RsView => ({
  name: rs.metadata!.name!,
  created: toMs(rs.metadata?.creationTimestamp) ?? 0,
  replicas: rs.spec?.replicas ?? 0,
  available: Math.min(rs.status?.availableReplicas ?? 0, rs.spec?.replicas ?? 0),
});

export class DeploymentController extends WorkloadController {
  readonly name = 'deployment';

  protected watch(ctx: ControllerContext) {
    const { deployments, replicaSets, pods } = ctx.informers;
    const self = (d: Deploy) => this.enqueue(keyOf(d));
    deployments.on({ add: self, update: self, delete: self });
    const owner = (rs: RS) => {
      const ref = controllerRef(rs);
      if (ref?.kind === 'Deployment') this.enqueue(`${rs.metadata?.namespace}/${ref.name}`);
    };
    replicaSets.on({ add: owner, update: owner, delete: owner });
    // Recreate waits for the old pods to be gone: their deletion must wake us
    pods.on({
      delete: (p) => {
        const ref = controllerRef(p);
        const rs = ref?.kind === 'ReplicaSet' ? replicaSets.get(ref.name, p.metadata?.namespace) : undefined;
        if (rs) owner(rs);
      },
    });
  }

  protected async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const d = this.ctx.informers.deployments.get(name, namespace);
    if (!d || isTerminating(d)) return;
    const sets = this.ctx.informers.replicaSets
      .list(namespace)
      .filter((rs) => isControlledBy(rs, d.metadata?.uid));
    const hash = templateHash(d.spec?.template, d.status?.collisionCount);
    let newSet = sets.find((rs) => rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] === hash);
    const oldSets = sets.filter((rs) => rs !== newSet);
    const desired = d.spec?.replicas ?? 1;
    const rolling = d.spec?.strategy?.type !== 'Recreate';
    const { surge, unavailable } = rolling
      ? fenceposts(
          d.spec?.strategy?.rollingUpdate?.maxSurge,
          d.spec?.strategy?.rollingUpdate?.maxUnavailable,
          desired,
        )
      : { surge: 0, unavailable: 0 };
    let created = false;
    if (!d.spec?.paused) {
      const r = await this.rollout(d, hash, newSet, oldSets, { desired, surge, unavailable, rolling });
      if (r === 'stop') return; // a write we made will come back as an informer event
      ({ newSet, created } = r);
    }
    const current = await this.syncRevision(d, newSet);
    const all = newSet && !sets.includes(newSet) ? [...sets, newSet] : sets;
    await this.writeStatus(current, newSet, all, unavailable, created);
  }

  /** One step of the rollout, as the real controller takes one per sync. */
  private async rollout(
    d: Deploy,
    hash: string,
    newSet: RS | undefined,
    oldSets: RS[],
    o: { desired: number; surge: number; unavailable: number; rolling: boolean },
  ): Promise<'stop' | { newSet: RS | undefined; created: boolean }> {
    const revision = String(Math.max(0, ...oldSets.map(revisionOf)) + 1);
    // a template rolled back to: its set becomes the newest revision again
    if (newSet && revisionOf(newSet) < Number(revision)) {
      await this.scale(d, newSet, newSet.spec?.replicas ?? 0, o.surge, revision);
      return 'stop';
    }
    const old = oldSets.map(view);
    const step = !o.rolling
      ? planRecreate(o.desired, newSet && view(newSet), old, this.oldPodsRunning(d, oldSets))
      : newSet
        ? planRolling({ ...o, newSet: view(newSet), oldSets: old })
        : { kind: 'createNew' as const, replicas: newSetTarget(o.desired, o.surge, old, 0) };
    if (step.kind === 'createNew') {
      const made = await this.createSet(d, hash, step.replicas, revision, o.surge);
      return made ? { newSet: made, created: true } : 'stop';
    }
    if (step.kind === 'scaleNew' && newSet) await this.scale(d, newSet, step.replicas, o.surge);
    if (step.kind === 'scaleOld')
      for (const c of step.changes)
        await this.scale(d, oldSets.find((rs) => rs.metadata?.name === c.name)!, c.replicas, o.surge);
    return { newSet, created: false };
  }

  /** Recreate's gate: any old pod not finished, terminating ones included. */
  private oldPodsRunning(d: Deploy, oldSets: RS[]): boolean {
    if (oldSets.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    const uids = new Set(oldSets.map((rs) => rs.metadata?.uid));
    return this.ctx.informers.pods
      .list(d.metadata?.namespace)
      .some((p) => uids.has(controllerRef(p)?.uid) && !isTerminal(p));
  }

  private async createSet(d: Deploy, hash: string, replicas: number, revision: string, surge: number) {
    const body = newReplicaSet(d, hash, replicas, revision, surge);
    const namespace = d.metadata!.namespace!;
    let made: RS | undefined;
    const ok = await tolerate(409, async () => {
      made = await this.ctx.clients.apps.createNamespacedReplicaSet({ namespace, body });
    });
    if (!ok) return undefined;
    this.event(d, `Scaled up replica set ${body.metadata!.name} from 0 to ${replicas}`);
    return made;
  }

  /** Optimistic: the cached resourceVersion goes with the write, so a stale cache gets 409 and a retry. */
  private async scale(d: Deploy, rs: RS, replicas: number, surge: number, revision?: string) {
    const from = rs.spec?.replicas ?? 0;
    const desired = d.spec?.replicas ?? 1;
    const annotations = {
      ...(rs.metadata?.annotations ?? {}),
      [ANN_DESIRED]: String(desired),
      [ANN_MAX]: String(desired + surge),
      ...(revision ? { [ANN_REVISION]: revision } : {}),
    };
    const { name, namespace } = rs.metadata as { name: string; namespace: string };
    const body: RS = { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec!, replicas } };
    await this.ctx.clients.apps.replaceNamespacedReplicaSet({ name, namespace, body });
    if (from !== replicas)
      this.event(
        d,
        `Scaled ${replicas > from ? 'up' : 'down'} replica set ${name} from ${from} to ${replicas}`,
      );
  }

  /** The deployment carries its newest set's revision; returns the deployment as written. */
  private async syncRevision(d: Deploy, newSet: RS | undefined): Promise<Deploy> {
    const revision = newSet?.metadata?.annotations?.[ANN_REVISION];
    if (!revision || d.metadata?.annotations?.[ANN_REVISION] === revision) return d;
    const { name, namespace } = d.metadata as { name: string; namespace: string };
    const annotations = { ...(d.metadata?.annotations ?? {}), [ANN_REVISION]: revision };
    return this.ctx.clients.apps.replaceNamespacedDeployment({
      name,
      namespace,
      body: { ...d, metadata: { ...d.metadata, annotations } },
    });
  }

  private async writeStatus(
    d: Deploy,
    newSet: RS | undefined,
    sets: RS[],
    unavailable: number,
    created: boolean,
  ) {
    const counts = (rs: RS) => ({
      replicas: rs.status?.replicas ?? 0,
      ready: rs.status?.readyReplicas ?? 0,
      available: rs.status?.availableReplicas ?? 0,
      specReplicas: rs.spec?.replicas ?? 0,
    });
    const status = deploymentStatus({
      desired: d.spec?.replicas ?? 1,
      generation: d.metadata?.generation ?? 0,
      unavailable,
      newSet: newSet && { name: newSet.metadata!.name!, counts: counts(newSet), created },
      all: sets.map(counts),
      previous: d.status,
      progressDeadlineSeconds: d.spec?.progressDeadlineSeconds,
      paused: !!d.spec?.paused,
      now: new Date(),
    });
    const key = keyOf(d);
    const wake = deadlineIn(status, d.spec?.progressDeadlineSeconds, Date.now());
    if (wake !== undefined) this.enqueue(key, wake);
    if (isComplete(d.spec?.replicas ?? 1, status, d.metadata?.generation ?? 0))
      await this.cleanup(d, newSet, sets);
    if (sameStatus(d.status, status)) return;
    const { name, namespace } = d.metadata as { name: string; namespace: string };
    await this.ctx.clients.apps.replaceNamespacedDeploymentStatus({
      name,
      namespace,
      body: { ...d, status },
    });
  }

  /** revisionHistoryLimit: drop the oldest empty old sets beyond the limit. */
  private async cleanup(d: Deploy, newSet: RS | undefined, sets: RS[]) {
    const limit = d.spec?.revisionHistoryLimit ?? 10;
    const old = sets
      .filter(
        (rs) =>
          rs !== newSet && !isTerminating(rs) && !(rs.spec?.replicas ?? 0) && !(rs.status?.replicas ?? 0),
      )
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of old.slice(0, Math.max(0, old.length - limit))) {
      const { name, namespace } = rs.metadata as { name: string; namespace: string };
      await tolerate(404, () => this.ctx.clients.apps.deleteNamespacedReplicaSet({ name, namespace }));
    }
  }

  private event(d: Deploy, message: string) {
    void this.ctx.events.record(
      COMPONENT,
      { kind: 'Deployment', apiVersion: 'apps/v1', ...d },
      'Normal',
      'ScalingReplicaSet',
      message,
    );
  }
}

function sameStatus(a: k8s.V1DeploymentStatus | undefined, b: k8s.V1DeploymentStatus): boolean {
  return JSON.stringify(normalise(a ?? {})) === JSON.stringify(normalise(b));
}

function normalise(s: k8s.V1DeploymentStatus) {
  const n = (x: number | undefined) => x ?? 0;
  const time = (t: unknown) => (t ? new Date(t as string).toISOString() : undefined);
  return {
    g: n(s.observedGeneration),
    r: n(s.replicas),
    u: n(s.updatedReplicas),
    rd: n(s.readyReplicas),
    a: n(s.availableReplicas),
    un: n(s.unavailableReplicas),
    c: (s.conditions ?? [])
      .map((c) => [c.type, c.status, c.reason, c.message, time(c.lastUpdateTime), time(c.lastTransitionTime)])
      .sort(),
  };
}
