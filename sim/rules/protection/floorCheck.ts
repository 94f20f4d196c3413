// The rule behind the checker's "protected workload above floor" invariant: an API deletion
// of an available protected pod must not leave fewer than minAvailable available pods.
// Availability is Podseidon's: not terminating, not finished, Ready for minReadySeconds.
// Pure: the caller supplies the pods and the time.
import { type Time, toMillis } from '../../../lib/kube/conditions.js';
import { type LabelSelector, labelSelectorMatches } from '../../../lib/kube/labelSelector.js';

/** The parts of a Pod the rule reads (a client-node V1Pod fits). */
export interface FloorPod {
  metadata?: { labels?: Record<string, string> | null; deletionTimestamp?: Time };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: Time }[] | null;
  };
}

/** The parts of a PodProtector's spec the rule reads. */
export interface Floor {
  minAvailable: number;
  minReadySeconds?: number | null;
  selector: LabelSelector;
  /** the pods counted; Podseidon defaults it to selector */
  aggregationSelector?: LabelSelector | null;
}

export interface FloorVerdict {
  available: number;
  minAvailable: number;
  breached: boolean;
}

export function isAvailable(pod: FloorPod, minReadySeconds: number, nowMs: number): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  // a Ready condition without a time reads as Go's zero time: ready long ago
  const since = toMillis(ready.lastTransitionTime) ?? 0;
  return since + Math.max(0, minReadySeconds) * 1000 <= nowMs;
}

/** Whether the protector guards this pod's deletion. */
export function protects(floor: Floor, pod: FloorPod): boolean {
  return labelSelectorMatches(floor.selector, pod.metadata?.labels ?? undefined);
}

/** Available pods the protector counts among `pods` (terminating ones never count). */
export function availableCount(floor: Floor, pods: FloorPod[], nowMs: number): number {
  const counted = floor.aggregationSelector ?? floor.selector;
  const mrs = floor.minReadySeconds ?? 0;
  return pods.filter(
    (p) => labelSelectorMatches(counted, p.metadata?.labels ?? undefined) && isAvailable(p, mrs, nowMs),
  ).length;
}

/**
 * Judge one API deletion. `before` is the pod as it was just before it was deleted; `after`
 * is every pod of the namespace now (the deleted one terminating or gone). Undefined when
 * the rule does not apply: the pod is not protected or was not available.
 */
export function judgeDeletion(
  floor: Floor,
  before: FloorPod,
  after: FloorPod[],
  nowMs: number,
): FloorVerdict | undefined {
  if (!protects(floor, before)) return undefined;
  if (!isAvailable(before, floor.minReadySeconds ?? 0, nowMs)) return undefined;
  const available = availableCount(floor, after, nowMs);
  return { available, minAvailable: floor.minAvailable, breached: available < floor.minAvailable };
}
