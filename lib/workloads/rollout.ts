// Deployment rollout arithmetic, after pkg/controller/deployment (rolling.go and
// util/deployment_util.go): maxSurge rounds up, maxUnavailable rounds down, and if
// both come out 0 one pod may be unavailable so the rollout can move at all.

export type IntOrPercent = number | string | undefined | null;

export function scaledValue(v: IntOrPercent, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    if (/^\d+$/.test(v)) return Number(v);
    throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export interface Fenceposts {
  surge: number;
  unavailable: number;
}

/** ResolveFenceposts plus MaxUnavailable's cap at the desired replicas. */
export function fenceposts(
  maxSurge: IntOrPercent,
  maxUnavailable: IntOrPercent,
  desired: number,
): Fenceposts {
  const surge = scaledValue(maxSurge ?? '25%', desired, true);
  let unavailable = scaledValue(maxUnavailable ?? '25%', desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable: Math.min(unavailable, desired) };
}

/** A ReplicaSet as the rollout sees it. */
export interface RsView {
  name: string;
  /** creation time, ms: old sets are scaled down oldest first */
  created: number;
  replicas: number;
  available: number;
}

const sum = (rs: RsView[], f: (r: RsView) => number) => rs.reduce((n, r) => n + f(r), 0);

/** NewRSNewReplicas for RollingUpdate: grow the new set as far as maxSurge allows. */
export function newSetTarget(desired: number, surge: number, all: RsView[], current: number): number {
  const total = sum(all, (r) => r.replicas);
  const maxTotal = desired + surge;
  if (total >= maxTotal) return current;
  return current + Math.max(0, Math.min(maxTotal - total, desired - current));
}

export type RollingStep =
  | { kind: 'scaleNew'; replicas: number }
  | { kind: 'scaleOld'; changes: { name: string; replicas: number }[] }
  | { kind: 'none' };

export interface RollingInput {
  desired: number;
  surge: number;
  unavailable: number;
  newSet: RsView;
  oldSets: RsView[];
}

/** One pass of rolloutRolling: scale the new set up, or else the old sets down. */
export function planRolling(i: RollingInput): RollingStep {
  const { newSet, desired } = i;
  if (newSet.replicas > desired) return { kind: 'scaleNew', replicas: desired };
  if (newSet.replicas < desired) {
    const target = newSetTarget(desired, i.surge, [newSet, ...i.oldSets], newSet.replicas);
    if (target !== newSet.replicas) return { kind: 'scaleNew', replicas: target };
  }
  const changes = scaleDownOld(i);
  return changes.length ? { kind: 'scaleOld', changes } : { kind: 'none' };
}

// reconcileOldReplicaSets: never below desired - maxUnavailable available pods, and
// count the new set's not-yet-available pods as unavailable.
function scaleDownOld(i: RollingInput): { name: string; replicas: number }[] {
  const old = [...i.oldSets].sort((a, b) => a.created - b.created || a.name.localeCompare(b.name));
  if (sum(old, (r) => r.replicas) === 0) return [];
  const minAvailable = i.desired - i.unavailable;
  const all = [i.newSet, ...old];
  const newUnavailable = i.newSet.replicas - i.newSet.available;
  const maxScaledDown = sum(all, (r) => r.replicas) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];
  const next = new Map(old.map((r) => [r.name, r.replicas]));
  // first the old sets' unhealthy pods: removing them costs no availability
  let cleaned = 0;
  for (const r of old) {
    const unhealthy = Math.max(0, r.replicas - r.available);
    const n = Math.min(maxScaledDown - cleaned, unhealthy);
    if (n <= 0) continue;
    next.set(r.name, r.replicas - n);
    cleaned += n;
  }
  // then available ones, as long as enough stay available
  const availableNow = sum(all, (r) => r.available);
  let budget = Math.max(0, availableNow - minAvailable);
  for (const r of old) {
    const n = Math.min(next.get(r.name)!, budget);
    if (n <= 0) continue;
    next.set(r.name, next.get(r.name)! - n);
    budget -= n;
  }
  return old
    .filter((r) => next.get(r.name) !== r.replicas)
    .map((r) => ({ name: r.name, replicas: next.get(r.name)! }));
}

/** Recreate: old sets to zero, wait until their pods are gone, then the new set at full size. */
export function planRecreate(
  desired: number,
  newSet: RsView | undefined,
  oldSets: RsView[],
  oldPodsRunning: boolean,
): RollingStep | { kind: 'createNew'; replicas: number } | { kind: 'wait' } {
  const shrink = oldSets.filter((r) => r.replicas > 0).map((r) => ({ name: r.name, replicas: 0 }));
  if (shrink.length) return { kind: 'scaleOld', changes: shrink };
  if (oldPodsRunning) return { kind: 'wait' };
  if (!newSet) return { kind: 'createNew', replicas: desired };
  return newSet.replicas === desired ? { kind: 'none' } : { kind: 'scaleNew', replicas: desired };
}
