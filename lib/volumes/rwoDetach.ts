// One VolumeAttachment as the attach view shows it: is its detach stuck, when will
// kube-controller-manager force it, and would a manual detach be safe. The force-detach rule
// is the attach/detach reconciler's (pkg/controller/volume/attachdetach/reconciler): once no
// pod in the API needs the volume on the node, it records the detach request time; while the
// node still reports the volume mounted it waits, unless the node carries the out-of-service
// taint (detach at once) or maxWaitForUnmountDuration (6 min) has passed and the node is not
// Ready and --disable-force-detach-on-timeout is off. A pod Terminating on an unreachable node
// keeps its stale Running status, so it still "needs" the volume: no timer runs until it is
// deleted. The view cannot see the kubelet's volumesInUse: a node that is not Ready is assumed
// to still have the volume mounted (it could not report an unmount). Pure.
import { formatAge } from '../console/ui/format.js';
import { formatGoDuration } from './detach.js';
import type {
  AttachmentInput,
  AttachmentRow,
  ForceDetach,
  ForceDetachSettings,
  NodeHealth,
  VolumeUser,
} from './rwoTypes.js';

export const DEFAULT_STUCK_AFTER_MS = 2 * 60_000;

/** The trimmed view folds both errors into `error`: split it by what the object is doing. */
export function attachErrorOf(a: AttachmentInput): string | undefined {
  if (a.attachError) return a.attachError;
  return a.error && !a.attached && a.deletionTimestamp === undefined ? a.error : undefined;
}

export function detachErrorOf(a: AttachmentInput): string | undefined {
  if (a.detachError) return a.detachError;
  return a.error && (a.attached || a.deletionTimestamp !== undefined) ? a.error : undefined;
}

/** Healthy as a person reads the map: Ready, heartbeating (cordoned is still healthy). */
export const nodeUp = (h: NodeHealth) => h === 'ready' || h === 'cordoned';

export interface AttachmentContext {
  now: number;
  settings: ForceDetachSettings;
  stuckAfterMs: number;
  health: NodeHealth;
  /** the Ready condition is True: what the reconciler's nodeIsHealthy checks */
  kubeReady: boolean;
  outOfService: boolean;
  fenced: boolean;
  /** every user of the volume; those on this node keep it attached */
  users: readonly VolumeUser[];
  /** when the console saw the last pod using the volume on this node leave the API */
  departedAt?: number;
}

const podName = (u: VolumeUser) => `${u.namespace}/${u.name}`;

export function attachmentRow(a: AttachmentInput, c: AttachmentContext): AttachmentRow {
  const onNode = c.users.filter((u) => u.node === a.node);
  const attachError = attachErrorOf(a);
  const detachError = detachErrorOf(a);
  const row: AttachmentRow = {
    name: a.name,
    node: a.node,
    attached: a.attached,
    nodeHealth: c.health,
    detaching: a.deletionTimestamp !== undefined,
    usersOnNode: onNode.map(podName),
    forceDetach: forceDetach(a, c, onNode),
    detachHint: detachHint(a, c, onNode),
  };
  if (a.deletionTimestamp !== undefined) row.detachingSince = a.deletionTimestamp;
  if (attachError) row.attachError = attachError;
  if (detachError) row.detachError = detachError;
  const stuck = stuckReason(a, c, onNode, detachError);
  if (stuck) row.stuck = stuck;
  return row;
}

function stuckReason(
  a: AttachmentInput,
  c: AttachmentContext,
  onNode: readonly VolumeUser[],
  detachError: string | undefined,
): string | undefined {
  if (detachError && a.deletionTimestamp !== undefined) return `detach failing: ${detachError}`;
  if (a.deletionTimestamp !== undefined) {
    const pending = c.now - a.deletionTimestamp;
    return pending > c.stuckAfterMs
      ? `detach pending for ${formatAge(pending)}: the VolumeAttachment waits for its attacher`
      : undefined;
  }
  if (nodeUp(c.health) || c.health === 'gone' || c.outOfService || c.fenced) return undefined;
  const where = `${a.node} (${c.health})`;
  if (onNode.some((u) => !u.terminating))
    return `held by ${where}: ${onNode.map(podName).join(', ')} there cannot be confirmed running or stopped`;
  if (onNode.length)
    return `held by ${where}: ${onNode.map(podName).join(', ')} Terminating there and cannot finish until the node answers or is fenced`;
  return `held by ${where} with no pod left there: released only by fencing, the node's return or the force-detach timeout`;
}

function forceDetach(a: AttachmentInput, c: AttachmentContext, onNode: readonly VolumeUser[]): ForceDetach {
  const names = onNode.map(podName).join(', ');
  const wait = formatGoDuration(c.settings.maxWaitMs);
  const na = (text: string): ForceDetach => ({ state: 'not-applicable', text });
  if (a.deletionTimestamp !== undefined) return na('detach under way');
  if (c.health === 'gone') return na('the node object is gone: detached without waiting for an unmount');
  if (c.outOfService)
    return {
      state: 'immediate',
      text: names
        ? `out-of-service taint: detached without waiting once ${names} are deleted`
        : 'out-of-service taint: detached without waiting',
    };
  if (onNode.length)
    return c.kubeReady
      ? na(`in use on ${a.node} by ${names}`)
      : {
          state: 'blocked',
          pods: onNode.map(podName),
          text: `no countdown: ${names} still in the API on ${a.node}; the ${wait} wait starts once deleted`,
        };
  if (c.kubeReady) return na(`${a.node} is Ready: detached once its kubelet unmounts the volume`);
  if (!c.settings.enabled)
    return {
      state: 'disabled',
      text: 'force detach on timeout is disabled: only the out-of-service taint (after fencing) releases it',
    };
  return countdown(c, wait);
}

function countdown(c: AttachmentContext, wait: string): ForceDetach {
  if (c.departedAt === undefined)
    return {
      state: 'unknown-start',
      maxWaitMs: c.settings.maxWaitMs,
      text: `force detach at most ${wait} after the last pod left (before the console saw it)`,
    };
  const deadline = c.departedAt + c.settings.maxWaitMs;
  const due = c.now >= deadline;
  return {
    state: due ? 'due' : 'counting',
    since: c.departedAt,
    deadline,
    text: due
      ? `maxWaitForUnmountDuration ${wait} passed: kube-controller-manager force-detaches now`
      : `force detach ${wait} after the last pod left, the node not Ready`,
  };
}

function detachHint(
  a: AttachmentInput,
  c: AttachmentContext,
  onNode: readonly VolumeUser[],
): AttachmentRow['detachHint'] {
  if (c.fenced) return { safe: true, why: `${a.node} is fenced` };
  if (c.outOfService) return { safe: true, why: `${a.node} is tainted out-of-service (declared shut down)` };
  if (onNode.length)
    return { safe: false, why: `${onNode.map(podName).join(', ')} still use it on ${a.node}` };
  if (c.health === 'gone') return { safe: true, why: `the node ${a.node} was deleted` };
  if (nodeUp(c.health)) return { safe: true, why: `no pod uses it on ${a.node}, which is ${c.health}` };
  return {
    safe: false,
    why: `no pod in the API on ${a.node}, but ${a.node} is ${c.health}: a process there may still write until it is fenced`,
  };
}
