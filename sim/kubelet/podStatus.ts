// The pod status a kubelet reports at each point of a pod's life, with the real
// conditions (PodScheduled, Initialized, ContainersReady, Ready) and container states.
import type * as k8s from '@kubernetes/client-node';

type Cond = {
  type: string;
  status: string;
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
};

export function micro(ms = Date.now()): string {
  // metav1.MicroTime: RFC 3339 with six fractional digits
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}

export function rfc3339(ms = Date.now()): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function cond(pod: k8s.V1Pod, type: string, status: boolean, reason?: string): Cond {
  const prior = pod.status?.conditions?.find((c) => c.type === type);
  const s = status ? 'True' : 'False';
  const same = prior?.status === s;
  const c: Cond = {
    type,
    status: s,
    lastProbeTime: null,
    lastTransitionTime:
      same && prior?.lastTransitionTime ? String(toIso(prior.lastTransitionTime)) : rfc3339(),
  };
  if (reason && !status) c.reason = reason;
  return c;
}

function toIso(v: unknown): string {
  return v instanceof Date ? rfc3339(v.getTime()) : String(v);
}

function containerStatus(c: k8s.V1Container, state: object, ready: boolean, started: boolean, restarts = 0) {
  return {
    name: c.name,
    image: c.image,
    imageID: `sim://${c.image}`,
    containerID: `sim://${c.name}`,
    ready,
    started,
    restartCount: restarts,
    state,
  };
}

/** Containers started, not yet ready. */
export function runningStatus(
  pod: k8s.V1Pod,
  startedAt: number,
  ready: boolean,
  podIP: string,
  hostIP: string,
) {
  const containers = pod.spec?.containers ?? [];
  return {
    phase: 'Running',
    hostIP,
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: pod.status?.startTime ? toIso(pod.status.startTime) : rfc3339(startedAt),
    qosClass: pod.status?.qosClass,
    conditions: [
      cond(pod, 'PodScheduled', true),
      cond(pod, 'Initialized', true),
      cond(pod, 'ContainersReady', ready, 'ContainersNotReady'),
      cond(pod, 'Ready', ready, 'ContainersNotReady'),
      ...(pod.status?.conditions ?? []).filter((c) => c.type === 'DisruptionTarget'),
    ],
    containerStatuses: containers.map((c) =>
      containerStatus(c, { running: { startedAt: rfc3339(startedAt) } }, ready, true),
    ),
  };
}

/** Waiting for volumes or for containers to start. */
export function pendingStatus(pod: k8s.V1Pod, reason: string, message: string) {
  const containers = pod.spec?.containers ?? [];
  return {
    phase: 'Pending',
    conditions: [
      cond(pod, 'PodScheduled', true),
      cond(pod, 'Initialized', true),
      cond(pod, 'ContainersReady', false, 'ContainersNotReady'),
      cond(pod, 'Ready', false, 'ContainersNotReady'),
    ],
    containerStatuses: containers.map((c) =>
      containerStatus(c, { waiting: { reason, message } }, false, false),
    ),
  };
}

/** After the process is gone: terminated containers and a terminal phase. */
export function terminatedStatus(
  pod: k8s.V1Pod,
  exitCode: number,
  startedAt: number | undefined,
  finishedAt: number,
) {
  const containers = pod.spec?.containers ?? [];
  const reason = exitCode === 0 ? 'Completed' : 'Error';
  return {
    phase: exitCode === 0 ? 'Succeeded' : 'Failed',
    conditions: [
      cond(pod, 'PodScheduled', true),
      cond(pod, 'Initialized', true),
      cond(pod, 'ContainersReady', false, 'PodCompleted'),
      cond(pod, 'Ready', false, 'PodCompleted'),
      ...(pod.status?.conditions ?? []).filter((c) => c.type === 'DisruptionTarget'),
    ],
    containerStatuses: containers.map((c) =>
      containerStatus(
        c,
        {
          terminated: {
            exitCode,
            reason,
            startedAt: startedAt ? rfc3339(startedAt) : null,
            finishedAt: rfc3339(finishedAt),
            containerID: `sim://${c.name}`,
          },
        },
        false,
        false,
      ),
    ),
  };
}
