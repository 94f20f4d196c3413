// When the guarded dialog's preview must be read again while it is open: whenever what the
// guard decides on changes — the node's readiness, taints or cordon, the pod's incarnation,
// node, state or deletion — and at the moment a fence is due. A heartbeat alone (a new
// resourceVersion every few seconds) changes nothing the guard reads, so it is left out.
import type { NodeView, PodView } from '../console/protocol.js';

/** What the guard reads of the node and the pod, as one comparable string. */
export function previewWatchKey(node: NodeView | undefined, pod: PodView | undefined): string {
  const n = node
    ? [
        node.ready,
        node.readySince ?? '',
        node.unschedulable ? 'cordoned' : '',
        node.taints.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).join(','),
      ].join('|')
    : 'no-node';
  const p = pod
    ? [pod.uid, pod.node ?? '', pod.state, pod.phase ?? '', pod.deletionTimestamp ?? ''].join('|')
    : 'no-pod';
  return `${n}#${p}`;
}

/** When to read the preview again on a timer: just after a fence is due, if one is coming. */
export function refetchDelayMs(fenceAt: number | undefined, now: number): number | undefined {
  if (fenceAt === undefined) return undefined;
  // a little after: the controller's loop runs on the second, the agent takes a moment
  return Math.max(fenceAt - now, 0) + 1_000;
}
