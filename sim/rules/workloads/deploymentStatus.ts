// Deployment status and its Available/Progressing conditions, with the reasons and
// messages of the real controller (sync.go syncRolloutStatus, deployment_util.go).
import type * as k8s from '@kubernetes/client-node';
import { toMs } from '../../../lib/workloads/pods.js';

type Condition = k8s.V1DeploymentCondition;

export interface SetCountsView {
  replicas: number;
  ready: number;
  available: number;
  specReplicas: number;
}

export interface StatusInput {
  desired: number;
  generation: number;
  unavailable: number;
  newSet?: { name: string; counts: SetCountsView; created: boolean };
  all: SetCountsView[];
  previous: k8s.V1DeploymentStatus | undefined;
  progressDeadlineSeconds?: number;
  paused: boolean;
  now: Date;
}

const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function deploymentCounts(i: StatusInput): k8s.V1DeploymentStatus {
  const total = (f: (s: SetCountsView) => number) => i.all.reduce((n, s) => n + f(s), 0);
  const available = total((s) => s.available);
  return {
    observedGeneration: i.generation,
    replicas: total((s) => s.replicas),
    updatedReplicas: i.newSet?.counts.replicas ?? 0,
    readyReplicas: total((s) => s.ready),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total((s) => s.specReplicas) - available),
  };
}

/** DeploymentComplete: every desired pod updated, available, and nothing extra. */
export function isComplete(desired: number, s: k8s.V1DeploymentStatus, generation: number): boolean {
  return (
    s.updatedReplicas === desired &&
    s.replicas === desired &&
    s.availableReplicas === desired &&
    (s.observedGeneration ?? 0) >= generation
  );
}

/** DeploymentProgressing: more updated/ready/available pods, or fewer old ones. */
function progressed(prev: k8s.V1DeploymentStatus | undefined, next: k8s.V1DeploymentStatus): boolean {
  const p = prev ?? {};
  const oldPods = (s: k8s.V1DeploymentStatus) => (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (p.updatedReplicas ?? 0) ||
    oldPods(next) < oldPods(p) ||
    (next.readyReplicas ?? 0) > (p.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (p.availableReplicas ?? 0)
  );
}

/** SetDeploymentCondition: same status and reason -> keep the old one untouched. */
function setCondition(list: Condition[], c: Condition): Condition[] {
  const old = list.find((x) => x.type === c.type);
  if (old && old.status === c.status && old.reason === c.reason) return list;
  if (old && old.status === c.status) c.lastTransitionTime = old.lastTransitionTime;
  return [...list.filter((x) => x.type !== c.type), c];
}

function condition(type: string, status: string, reason: string, message: string, now: Date): Condition {
  const t = rfc3339(now) as unknown as Date;
  return { type, status, reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

function availableCondition(i: StatusInput, s: k8s.V1DeploymentStatus): Condition {
  return (s.availableReplicas ?? 0) >= i.desired - i.unavailable
    ? condition(
        'Available',
        'True',
        'MinimumReplicasAvailable',
        'Deployment has minimum availability.',
        i.now,
      )
    : condition(
        'Available',
        'False',
        'MinimumReplicasUnavailable',
        'Deployment does not have minimum availability.',
        i.now,
      );
}

function progressingCondition(
  i: StatusInput,
  s: k8s.V1DeploymentStatus,
  prev?: Condition,
): Condition | undefined {
  const rs = i.newSet ? `ReplicaSet "${i.newSet.name}"` : 'Deployment';
  if (i.paused) return condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', i.now);
  if (isComplete(i.desired, s, i.generation))
    return condition(
      'Progressing',
      'True',
      'NewReplicaSetAvailable',
      `${rs} has successfully progressed.`,
      i.now,
    );
  if (i.newSet?.created)
    return condition(
      'Progressing',
      'True',
      'NewReplicaSetCreated',
      `Created new replica set "${i.newSet.name}"`,
      i.now,
    );
  if (progressed(i.previous, s)) {
    // progress refreshes lastUpdateTime (the deadline clock) even with an unchanged reason
    const c = condition('Progressing', 'True', 'ReplicaSetUpdated', `${rs} is progressing.`, i.now);
    if (prev?.status === 'True') c.lastTransitionTime = prev.lastTransitionTime;
    return c;
  }
  if (timedOut(i, prev))
    return condition(
      'Progressing',
      'False',
      'ProgressDeadlineExceeded',
      `${rs} has timed out progressing.`,
      i.now,
    );
  if (!prev && i.newSet)
    return condition(
      'Progressing',
      'True',
      'FoundNewReplicaSet',
      `Found new replica set "${i.newSet.name}"`,
      i.now,
    );
  return undefined;
}

function timedOut(i: StatusInput, prev?: Condition): boolean {
  if (!i.progressDeadlineSeconds || !prev || prev.reason === 'NewReplicaSetAvailable') return false;
  if (prev.reason === 'ProgressDeadlineExceeded') return true;
  const from = toMs(prev.lastUpdateTime);
  return from !== undefined && from + i.progressDeadlineSeconds * 1000 < i.now.getTime();
}

/** ms until the Progressing condition would time out, when that is worth a recheck. */
export function deadlineIn(s: k8s.V1DeploymentStatus, deadlineSeconds: number | undefined, now: number) {
  const c = s.conditions?.find((x) => x.type === 'Progressing');
  if (!deadlineSeconds || !c || c.status !== 'True' || c.reason === 'NewReplicaSetAvailable')
    return undefined;
  const from = toMs(c.lastUpdateTime);
  return from === undefined ? undefined : Math.max(0, from + deadlineSeconds * 1000 - now + 1000);
}

export function deploymentStatus(i: StatusInput): k8s.V1DeploymentStatus {
  const s = deploymentCounts(i);
  let conditions = [...(i.previous?.conditions ?? [])];
  conditions = setCondition(conditions, availableCondition(i, s));
  const prev = conditions.find((c) => c.type === 'Progressing');
  const p = progressingCondition(i, s, prev);
  if (p?.reason === 'ReplicaSetUpdated')
    conditions = [...conditions.filter((c) => c.type !== 'Progressing'), p];
  else if (p) conditions = setCondition(conditions, p);
  const collisionCount = i.previous?.collisionCount;
  return { ...s, conditions, ...(collisionCount ? { collisionCount } : {}) };
}
