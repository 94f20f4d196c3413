// From a Kubernetes Pod to the facts protection judges it by, and the health criterion
// its deletion is judged under: the Eviction's annotation, else the pod's, else Available.
import type * as k8s from '@kubernetes/client-node';
import { contribution, type PodFacts } from './counts.js';
import type { PodHealth } from './quota.js';
import { ANNOTATIONS, CRITERIA, type Criterion } from './types.js';

const ms = (t: Date | string | undefined | null) => (t ? new Date(t).getTime() : undefined);

export function podFacts(p: k8s.V1Pod): PodFacts {
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
  const isReady = ready?.status === 'True';
  // as Podseidon: scheduled means the PodScheduled condition is True (the scheduler, or the
  // kubelet for a pod created with its node set, writes it), not merely a nodeName
  const scheduled = p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'True');
  return {
    uid: p.metadata?.uid ?? '',
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    labels: p.metadata?.labels ?? {},
    annotations: p.metadata?.annotations ?? {},
    terminating: !!p.metadata?.deletionTimestamp,
    finished: p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed',
    scheduled: !!scheduled,
    running: p.status?.phase === 'Running',
    // a Ready condition without a transition time has been ready for as long as we know
    readySince: isReady ? (ms(ready?.lastTransitionTime) ?? 0) : undefined,
  };
}

export function podHealth(p: PodFacts, minReadySeconds: number, now: number): PodHealth {
  const c = contribution(p, minReadySeconds, now);
  return {
    scheduled: c.scheduled > 0,
    running: c.running > 0,
    ready: c.ready > 0,
    available: c.available > 0,
  };
}

export type CriterionChoice =
  | { ok: true; criterion: Criterion; warning?: string }
  | { ok: false; error: string };

/**
 * The value as Podseidon reads it: exactly Scheduled, Running or Ready picks that count;
 * anything else (Available, a typo, another case) is Available, the strictest criterion, so a
 * mistyped annotation can only make a deletion harder, never easier. A warning says so.
 */
function parseCriterion(v: string | undefined, where: string): CriterionChoice | undefined {
  if (v === undefined) return undefined;
  const found = CRITERIA.find((c) => c === v);
  if (found) return { ok: true, criterion: found };
  return {
    ok: true,
    criterion: 'Available',
    warning: `${where} annotation ${ANNOTATIONS.healthCriterion}: unknown health criterion ${JSON.stringify(v)} (expected one of ${CRITERIA.join(', ')}): judged as Available`,
  };
}

export function criterionOf(
  podAnnotations: Record<string, string> | undefined,
  evictionAnnotations?: Record<string, string>,
): CriterionChoice {
  return (
    parseCriterion(evictionAnnotations?.[ANNOTATIONS.healthCriterion], 'Eviction') ??
    parseCriterion(podAnnotations?.[ANNOTATIONS.healthCriterion], 'pod') ?? {
      ok: true,
      criterion: 'Available',
    }
  );
}

/** As Podseidon: the annotation's presence, whatever its value, forces the deletion. */
export const isForceDelete = (annotations: Record<string, string> | undefined) =>
  annotations?.[ANNOTATIONS.forceDelete] !== undefined;
