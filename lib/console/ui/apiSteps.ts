// Termination steps read from the Kubernetes API itself, for any cluster: when the pod left
// its Services' endpoints (observed by the console), the kubelet's own Events (Killing,
// FailedPreStopHook, ExceededGracePeriod) and when the pod object disappeared. On the
// embedded cluster the kubelet's recorded steps say the same more precisely, so there only
// the endpoint changes are added.
import type { TerminationStep } from './timeline';

export interface EventLike {
  reason: string;
  message: string;
  /** ms since epoch */
  last?: number;
}

export interface EndpointChangeLike {
  service: string;
  change: string;
  at: number;
}

export interface ApiStepInput {
  events: readonly EventLike[];
  endpoints: readonly EndpointChangeLike[];
  /** when the console saw the pod object go */
  deletedAt?: number;
  /** when deletion was requested (deletionTimestamp - grace); events before it are not part of it */
  requestedAt?: number;
  kubeletSteps: boolean;
}

const EVENT_STEP: Record<string, string> = {
  Killing: 'event-killing',
  FailedPreStopHook: 'event-prestop-failed',
  ExceededGracePeriod: 'event-grace-exceeded',
};

export function apiSteps(i: ApiStepInput): TerminationStep[] {
  const out: TerminationStep[] = i.endpoints.map((e) => ({
    step: 'left-endpoints',
    at: e.at,
    detail: `${e.service}: ${e.change === 'removed' ? 'removed' : e.change === 'terminating' ? 'terminating, no new traffic' : 'not ready'}`,
  }));
  if (i.kubeletSteps) return out;
  // an event's time has one-second resolution: allow for it against the request time
  const since = (i.requestedAt ?? Number.NEGATIVE_INFINITY) - 1000;
  for (const e of i.events) {
    const step = EVENT_STEP[e.reason];
    if (step && e.last !== undefined && e.last >= since) out.push({ step, at: e.last, detail: e.message });
  }
  if (i.deletedAt !== undefined) out.push({ step: 'gone-from-api', at: i.deletedAt });
  return out.sort((a, b) => a.at - b.at);
}
