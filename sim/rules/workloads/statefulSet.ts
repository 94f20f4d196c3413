// StatefulSet bookkeeping, after kube-controller-manager's stateful_set_control.go.
// The safety property lives here: an identity (ordinal) gets a new pod only when no
// pod object for it exists at all. A terminating pod still holds its identity, since
// its processes may still run (seed 000: at most one pod per identity).

/** What the planner needs to know about one existing pod of the set. */
export interface ReplicaView {
  ordinal: number;
  name: string;
  revision: string;
  terminating: boolean;
  /** Succeeded or Failed: its processes are gone, so it is deleted and recreated */
  finished: boolean;
  /** Running and Ready */
  ready: boolean;
  /** Ready for at least minReadySeconds */
  available: boolean;
}

export interface SetPlanInput {
  replicas: number;
  /** podManagementPolicy Parallel: no waiting on predecessors */
  parallel: boolean;
  onDelete: boolean;
  partition: number;
  currentRevision: string;
  updateRevision: string;
  pods: ReplicaView[];
}

export type SetStep =
  | { kind: 'create'; ordinal: number; revision: string }
  | { kind: 'delete'; ordinal: number; name: string; reason: 'finished' | 'condemned' | 'update' };

export interface SetPlan {
  steps: SetStep[];
  /** why an OrderedReady set stopped before doing more (for logs and tests) */
  blockedBy?: string;
}

export const podName = (set: string, ordinal: number) => `${set}-${ordinal}`;
export const claimName = (template: string, set: string, ordinal: number) => `${template}-${set}-${ordinal}`;

/** The ordinal of a pod of this set, or undefined if the name is not <set>-<n>. */
export function ordinalOf(set: string, pod: string): number | undefined {
  const m = /^(.*)-(0|[1-9][0-9]*)$/.exec(pod);
  if (!m || m[1] !== set) return undefined;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Pods below the partition stay at (or are recreated with) the current revision. */
export function revisionFor(ordinal: number, i: SetPlanInput): string {
  return !i.onDelete && ordinal < i.partition ? i.currentRevision : i.updateRevision;
}

const healthy = (p: ReplicaView) => p.ready && p.available && !p.terminating;

/** One pass of the StatefulSet control loop: what to create or delete now. */
export function planStatefulSet(i: SetPlanInput): SetPlan {
  const ordered = !i.parallel;
  const steps: SetStep[] = [];
  const byOrdinal = new Map(i.pods.map((p) => [p.ordinal, p]));
  const stop = (why: string): SetPlan => ({ steps, blockedBy: why });

  for (let ord = 0; ord < i.replicas; ord++) {
    const p = byOrdinal.get(ord);
    if (!p) {
      steps.push({ kind: 'create', ordinal: ord, revision: revisionFor(ord, i) });
      if (ordered) return stop(`creating ${ord}`);
      continue;
    }
    // the identity stays taken until the object is gone from the API
    if (p.terminating) {
      if (ordered) return stop(`${p.name} is terminating`);
      continue;
    }
    if (p.finished) {
      steps.push({ kind: 'delete', ordinal: ord, name: p.name, reason: 'finished' });
      if (ordered) return stop(`${p.name} finished`);
      continue;
    }
    if (ordered && !p.ready) return stop(`${p.name} is not ready`);
    if (ordered && !p.available) return stop(`${p.name} is not available`);
  }

  const condemned = i.pods.filter((p) => p.ordinal >= i.replicas).sort((a, b) => b.ordinal - a.ordinal);
  for (const p of condemned) {
    if (p.terminating) {
      if (ordered) return stop(`${p.name} is terminating`);
      continue;
    }
    steps.push({ kind: 'delete', ordinal: p.ordinal, name: p.name, reason: 'condemned' });
    if (ordered) return stop(`scaling down ${p.name}`);
  }
  if (i.onDelete) return { steps };
  return planUpdate(i, byOrdinal, steps);
}

// Rolling update: highest ordinal first, one pod at a time, each replacement healthy
// before the next goes; ordinals below the partition are left alone.
function planUpdate(i: SetPlanInput, byOrdinal: Map<number, ReplicaView>, steps: SetStep[]): SetPlan {
  if (steps.length) return { steps, blockedBy: 'replicas not settled' };
  for (let ord = i.replicas - 1; ord >= Math.max(0, i.partition); ord--) {
    const p = byOrdinal.get(ord);
    if (!p) return { steps, blockedBy: `${ord} missing` };
    if (p.revision !== i.updateRevision && !p.terminating) {
      steps.push({ kind: 'delete', ordinal: ord, name: p.name, reason: 'update' });
      return { steps, blockedBy: `updating ${p.name}` };
    }
    if (!healthy(p)) return { steps, blockedBy: `${p.name} is not healthy` };
  }
  return { steps };
}

export interface SetCounts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
}

/** computeReplicaStatus + completeRollingUpdate of the real controller. */
export function statefulSetCounts(
  pods: ReplicaView[],
  currentRevision: string,
  updateRevision: string,
  onDelete: boolean,
): SetCounts {
  const c: SetCounts = {
    replicas: pods.length,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision,
    updateRevision,
  };
  for (const p of pods) {
    if (p.ready) c.readyReplicas++;
    if (p.ready && p.available) c.availableReplicas++;
    if (p.terminating) continue;
    if (p.revision === currentRevision) c.currentReplicas++;
    if (p.revision === updateRevision) c.updatedReplicas++;
  }
  if (!onDelete && c.updatedReplicas === c.replicas && c.readyReplicas === c.replicas) {
    c.currentReplicas = c.updatedReplicas;
    c.currentRevision = updateRevision;
  }
  return c;
}
