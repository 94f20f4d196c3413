// Timestamps and status conditions as Kubernetes components write them. Pure: no I/O.
//
// client-node hands out times as Date objects from typed list calls but as strings
// from watch events, so everything here accepts both.

export type Time = Date | string | null | undefined;

/** Milliseconds since the epoch, or undefined for a missing or unparsable time. */
export function toMillis(t: Time): number | undefined {
  if (t === null || t === undefined || t === '') return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** metav1.Time wire form: RFC 3339 with second precision. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A Time as it should be sent back to the API server (strings pass through). */
export function wireTime(t: Time): string | undefined {
  if (t === null || t === undefined) return undefined;
  return t instanceof Date ? rfc3339(t.getTime()) : t;
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
}

function wirePodCondition(c: PodCondition): PodCondition {
  const out: PodCondition = { ...c };
  for (const k of ['lastProbeTime', 'lastTransitionTime'] as const) {
    if (out[k] instanceof Date) out[k] = wireTime(out[k]);
  }
  return out;
}

/**
 * apipod.UpdatePodCondition: set (or add) a condition, replacing the old one of its type;
 * lastTransitionTime moves only when the status changes. Returns the new list and whether
 * anything changed.
 */
export function setPodCondition(
  conditions: PodCondition[] | undefined,
  next: Omit<PodCondition, 'lastTransitionTime' | 'lastProbeTime'>,
  nowMs: number,
): { conditions: PodCondition[]; changed: boolean } {
  const list = (conditions ?? []).map(wirePodCondition);
  const i = list.findIndex((c) => c.type === next.type);
  const now = rfc3339(nowMs);
  if (i < 0) return { conditions: [...list, { ...next, lastTransitionTime: now }], changed: true };
  const old = list[i];
  const same =
    old.status === next.status &&
    (old.reason ?? '') === (next.reason ?? '') &&
    (old.message ?? '') === (next.message ?? '');
  if (same) return { conditions: list, changed: false };
  list[i] = { ...next, lastTransitionTime: old.status === next.status ? old.lastTransitionTime : now };
  return { conditions: list, changed: true };
}

export function podCondition(
  pod: { status?: { conditions?: PodCondition[] } },
  type: string,
): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** metav1.Condition, as used by PodDisruptionBudget and most newer APIs. */
export interface StatusCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: Time;
}

/** apimeta.SetStatusCondition: lastTransitionTime moves only when the status changes. */
export function setStatusCondition(
  conditions: StatusCondition[] | undefined,
  next: Omit<StatusCondition, 'lastTransitionTime'>,
  nowMs: number,
): StatusCondition[] {
  const list = (conditions ?? []).map((c) => ({ ...c, lastTransitionTime: wireTime(c.lastTransitionTime) }));
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) return [...list, { ...next, lastTransitionTime: rfc3339(nowMs) }];
  const old = list[i];
  list[i] = {
    ...next,
    lastTransitionTime: old.status === next.status ? old.lastTransitionTime : rfc3339(nowMs),
  };
  return list;
}
