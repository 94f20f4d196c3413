// Attach/detach controller decisions on the detach side: may a volume leave a node
// now, is that known to be safe, and if not, when might time alone change the answer.
// Kubernetes detaches once no pod on the node needs the volume and the kubelet no
// longer reports it in use; it skips the in-use check for nodes tainted out-of-service
// and, after maxWaitForUnmountDuration on a node that is not Ready, force-detaches a
// volume a live process may still be writing. Palisade's RWO attach guard reuses
// this to explain, and to refuse, unsafe detaches. Pure.
import type { DetachKind } from './names.js';

export interface DetachInput {
  /** pods in the API on this node that use the volume (Terminating ones included) */
  podsUsing: string[];
  /** the node's kubelet still lists the volume in node.status.volumesInUse */
  mountedByNode: boolean;
  /** the node object, or undefined when it is gone */
  node?: { ready: 'True' | 'False' | 'Unknown'; outOfService: boolean };
  /** when the volume stopped being needed on this node (epoch ms) */
  detachRequestedAtMs: number;
  nowMs: number;
  /** maxWaitForUnmountDuration (6 minutes in kube-controller-manager) */
  maxWaitForUnmountMs: number;
  /** false: --disable-force-detach-on-timeout */
  forceDetachEnabled: boolean;
}

export interface DetachVerdict {
  /** detach now */
  detach: boolean;
  /** no running process can be writing through this attachment (false for a forced detach) */
  safe: boolean;
  kind: DetachKind;
  reason: string;
  /** when waiting: the verdict may change by time alone after this many ms */
  recheckInMs?: number;
}

export function decideDetach(i: DetachInput): DetachVerdict {
  if (i.podsUsing.length > 0)
    return {
      detach: false,
      safe: false,
      kind: 'in-use-by-pod',
      reason: `volume is needed by pod(s) ${i.podsUsing.join(', ')} on the node`,
    };
  if (!i.node) return { detach: true, safe: true, kind: 'node-gone', reason: 'the node object was deleted' };
  if (!i.mountedByNode)
    return {
      detach: true,
      safe: true,
      kind: 'unmounted',
      reason: 'the kubelet no longer reports the volume in use',
    };
  if (i.node.outOfService)
    return {
      detach: true,
      safe: true,
      kind: 'out-of-service',
      reason: 'the node is tainted node.kubernetes.io/out-of-service: declared shut down',
    };
  return mountedVerdict(i, i.node.ready === 'True');
}

function mountedVerdict(i: DetachInput, healthy: boolean): DetachVerdict {
  const waited = i.nowMs - i.detachRequestedAtMs;
  const left = i.maxWaitForUnmountMs - waited;
  const limit = formatGoDuration(i.maxWaitForUnmountMs);
  if (i.forceDetachEnabled && left <= 0 && !healthy)
    return {
      detach: true,
      safe: false,
      kind: 'force-timeout',
      reason: `the node is not Ready and still reports the volume in use; maxWaitForUnmountDuration ${limit} expired`,
    };
  const wait = { detach: false, safe: false, kind: 'mounted' as const };
  if (!i.forceDetachEnabled)
    return {
      ...wait,
      reason: 'the node still reports the volume in use (force detach on timeout is disabled)',
    };
  if (left > 0)
    return {
      ...wait,
      reason: `the node still reports the volume in use; force detach after maxWaitForUnmountDuration ${limit} if the node is not Ready`,
      recheckInMs: left,
    };
  return { ...wait, reason: 'the node is Ready and still reports the volume in use' };
}

/** kube-controller-manager's log line for a forced detach, word for word. */
export function forceDetachMessage(
  pvName: string,
  uniqueName: string,
  node: string,
  maxWaitMs: number,
): string {
  return (
    `attacherDetacher.DetachVolume started for volume "${pvName}" (UniqueName: "${uniqueName}") on node "${node}" ` +
    `This volume is not safe to detach, but maxWaitForUnmountDuration ${formatGoDuration(maxWaitMs)} expired, force detaching`
  );
}

/** time.Duration.String() for whole milliseconds: 6m0s, 2s, 1.5s, 500ms, 1h0m0s. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (Math.abs(ms) < 1000) return `${ms}ms`;
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${Number((rest / 1000).toFixed(3))}s`;
  if (h) return `${sign}${h}h${m}m${s}`;
  if (m) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}
