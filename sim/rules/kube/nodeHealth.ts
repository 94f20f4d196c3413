// The node lifecycle controller's decisions: when a node's kubelet counts as silent, what
// its conditions become then, which taints its conditions imply, and when the cluster is
// so disrupted that NoExecute tainting stops. Wording follows kube-controller-manager.
// Pure: no I/O.
import { type Time, rfc3339, toMillis, wireTime } from '../../../lib/kube/conditions.js';
import { sameTaint, type Taint } from '../../../lib/kube/tolerations.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const LABEL_EXCLUDE_DISRUPTION = 'node.kubernetes.io/exclude-disruption';

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
}

/** When the kubelet was last heard from: the later of its Lease renewal and Ready heartbeat. */
export function lastHeardMs(readyHeartbeat: Time, leaseRenew: Time, created: Time): number | undefined {
  const times = [toMillis(readyHeartbeat), toMillis(leaseRenew)].filter((t) => t !== undefined);
  return times.length ? Math.max(...times) : toMillis(created);
}

export function isSilent(lastHeard: number | undefined, nowMs: number, graceMs: number): boolean {
  return lastHeard === undefined || nowMs - lastHeard > graceMs;
}

/** NetworkUnavailable is left alone: the network plugin owns it, not the kubelet. */
export const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** tryUpdateNodeHealth for a silent node: every monitored condition becomes Unknown. */
export function markConditionsUnknown(
  conditions: NodeCondition[] | undefined,
  nowMs: number,
  created: Time,
): { conditions: NodeCondition[]; changed: boolean } {
  const now = rfc3339(nowMs);
  const list = (conditions ?? []).map((c) => ({
    ...c,
    lastHeartbeatTime: wireTime(c.lastHeartbeatTime),
    lastTransitionTime: wireTime(c.lastTransitionTime),
  }));
  let changed = false;
  for (const type of MONITORED_CONDITIONS) {
    const c = list.find((x) => x.type === type);
    if (!c) {
      list.push({
        type,
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: wireTime(created),
        lastTransitionTime: now,
      });
      changed = true;
    } else if (c.status !== 'Unknown') {
      Object.assign(c, {
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastTransitionTime: now,
      });
      changed = true;
    }
  }
  return { conditions: list, changed };
}

// nodeConditionToTaintKeyStatusMap: condition status -> NoSchedule taint
const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
};
const NO_SCHEDULE_KEYS = new Set([
  TAINT_UNSCHEDULABLE,
  ...Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)),
]);
const NO_EXECUTE_KEYS = new Set([TAINT_NOT_READY, TAINT_UNREACHABLE]);

/** add: taint NoExecute as Ready says; keep: only swap an existing one; remove: take them off. */
export type NoExecuteMode = 'add' | 'keep' | 'remove';

// a node that never posted Ready is not tainted until this controller marks it Unknown
function readyStatus(conditions: NodeCondition[] | undefined): string | undefined {
  return conditions?.find((c) => c.type === 'Ready')?.status;
}

function wantedNoSchedule(conditions: NodeCondition[] | undefined, unschedulable: boolean): string[] {
  const keys = (conditions ?? [])
    .map((c) => CONDITION_TAINTS[c.type]?.[c.status])
    .filter((k) => k !== undefined);
  if (unschedulable) keys.push(TAINT_UNSCHEDULABLE);
  return keys;
}

function wantedNoExecute(taints: Taint[], conditions: NodeCondition[] | undefined, mode: NoExecuteMode) {
  const status = readyStatus(conditions);
  const key = status === 'False' ? TAINT_NOT_READY : status === 'Unknown' ? TAINT_UNREACHABLE : undefined;
  if (!key || mode === 'remove') return undefined;
  const tainted = taints.some((t) => t.effect === 'NoExecute' && NO_EXECUTE_KEYS.has(t.key));
  return mode === 'add' || tainted ? key : undefined;
}

/**
 * The node's taints with the controller-owned ones brought in line with its conditions
 * (doNoScheduleTaintingPass + processTaintBaseEviction). Other taints are kept in place;
 * every taint added gets timeAdded = now, NoSchedule ones too (SwapNodeControllerTaint
 * stamps all it adds; measured on kube-controller-manager v1.34.10).
 */
export function reconcileNodeTaints(
  taints: Taint[] | undefined,
  conditions: NodeCondition[] | undefined,
  unschedulable: boolean,
  mode: NoExecuteMode,
  nowMs: number,
): Taint[] {
  const current = (taints ?? []).map((t) => (t.timeAdded ? { ...t, timeAdded: wireTime(t.timeAdded) } : t));
  const want: Taint[] = wantedNoSchedule(conditions, unschedulable).map((key) => ({
    key,
    effect: 'NoSchedule',
    timeAdded: rfc3339(nowMs),
  }));
  const noExecute = wantedNoExecute(current, conditions, mode);
  if (noExecute) want.push({ key: noExecute, effect: 'NoExecute', timeAdded: rfc3339(nowMs) });
  const owned = (t: Taint) =>
    (t.effect === 'NoSchedule' && NO_SCHEDULE_KEYS.has(t.key)) ||
    (t.effect === 'NoExecute' && NO_EXECUTE_KEYS.has(t.key));
  const kept = current.filter((t) => !owned(t) || want.some((w) => sameTaint(w, t)));
  const added = want.filter((w) => !kept.some((t) => sameTaint(w, t)));
  return [...kept, ...added];
}

/**
 * The writes that take `current` to `target` in kube-controller-manager's order, each a
 * whole taint list: NoSchedule taints added, then stale ones removed (the NoSchedule pass
 * on every node update), then the same for NoExecute (the tainting queue, a separate
 * loop). A client watching the node sees the NoSchedule taint before the NoExecute one,
 * and loses it first on recovery.
 */
export function taintWrites(current: Taint[] | undefined, target: Taint[]): Taint[][] {
  const writes: Taint[][] = [];
  let now = current ?? [];
  for (const effect of ['NoSchedule', 'NoExecute']) {
    const add = target.filter((t) => t.effect === effect && !now.some((u) => sameTaint(t, u)));
    if (add.length) writes.push((now = [...now, ...add]));
    const kept = now.filter((t) => t.effect !== effect || target.some((u) => sameTaint(t, u)));
    if (kept.length !== now.length) writes.push((now = kept));
  }
  return writes;
}

export function sameTaintSet(a: Taint[] | undefined, b: Taint[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((t) => y.some((u) => sameTaint(t, u)));
}

// ---------------------------------------------------------------------------
// Zone disruption (handleDisruption)

export type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** utilnode.GetZoneKey: region and zone labels; nodes without them share the "" zone. */
export function zoneKey(labels: Record<string, string> | undefined): string {
  const l = labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  return region || zone ? `${region}:\x00:${zone}` : '';
}

/** ComputeZoneState with the default unhealthy-zone threshold of 55 %. */
export function zoneState(readyStatuses: string[], unhealthyThreshold = 0.55): ZoneState {
  const notReady = readyStatuses.filter((s) => s !== 'True').length;
  const ready = readyStatuses.length - notReady;
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / readyStatuses.length >= unhealthyThreshold) return 'PartialDisruption';
  return 'Normal';
}

export interface NodeHealthSummary {
  zone: string;
  ready: string;
  excluded: boolean;
}

/**
 * NoExecute tainting per zone: when every zone is fully disrupted the controller assumes
 * its own connectivity is at fault and takes the taints off everywhere ("master disruption
 * mode"); a partially disrupted small zone (<= largeClusterThreshold nodes) gets no new
 * NoExecute taints (its eviction rate drops to 0).
 */
export function noExecuteModes(nodes: NodeHealthSummary[], largeClusterThreshold = 50) {
  const zones = new Map<string, string[]>();
  for (const n of nodes) {
    if (n.excluded) continue;
    zones.set(n.zone, [...(zones.get(n.zone) ?? []), n.ready]);
  }
  const states = new Map([...zones].map(([z, ready]) => [z, zoneState(ready)]));
  const allDisrupted = states.size > 0 && [...states.values()].every((s) => s === 'FullDisruption');
  return (zone: string): NoExecuteMode => {
    if (allDisrupted) return 'remove';
    const small = (zones.get(zone)?.length ?? 0) <= largeClusterThreshold;
    return states.get(zone) === 'PartialDisruption' && small ? 'keep' : 'add';
  };
}
