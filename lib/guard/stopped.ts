// Has a pod's process stopped for sure? The one rule behind everything Palisade lets go of for a
// pod that may still run somewhere: the guarded force delete (and so a StatefulSet identity, whose
// replacement the controller creates as soon as the pod object is gone) and an instance ID given
// to another pod. The API's view is not enough — a Terminating pod, or one the API no longer
// lists, may still run on a node the API cannot reach (seed 000). Stopped for sure means:
//
// - it was never scheduled to a node;
// - its node's kubelet confirmed the end while the node is Ready: a terminal phase (Succeeded or
//   Failed) on a Ready node, or the pod removed by that kubelet's own final delete after it
//   reported the end (what the console's watch saw as the pod left);
// - its node is fenced (a NodeFence Fenced, Releasing or Released about this node and the boot the
//   pod ran in);
// - its node booted again since the pod ran there (a new bootID: the old processes are gone — the
//   fence's own recovery rule, lib/fencing/health.ts cameBack), and the API lists it no more or as
//   Terminating: a pod still listed is started again by the kubelet of the new boot;
// - its Node object is gone (Kubernetes' own signal of a node removed for good: PodGC then deletes
//   its pods itself).
//
// Anything else waits, with a typed reason. Pure: the callers read the facts live.
import { fenceState } from './fenced.js';
import { type FenceFacts, type NodeFacts, readyWords } from './types.js';

export interface HolderPod {
  name: string;
  nodeName?: string;
  phase?: string;
  /** set when the pod is Terminating */
  deletionTimestamp?: string | number;
}

/** How a pod left the API, when a watch saw it go. */
export interface Departure {
  /**
   * it never ran (no node), or its last state was a terminal phase reported while its node was
   * Ready: its kubelet's own delete
   */
  confirmed: boolean;
  /** where it ran */
  nodeName?: string;
}

export interface HolderFacts {
  /** the pod's name (for the sentences) */
  name: string;
  /** the pod as the API lists it now; undefined: the API does not list it */
  pod?: HolderPod;
  /** seen leaving the API (only when `pod` is undefined) */
  departure?: Departure;
  /** where it ran when nothing else says (e.g. recorded when it took an instance ID) */
  nodeName?: string;
  /** the node's bootID when the pod ran there, if recorded */
  bootId?: string;
  /** the node read now; undefined: no Node object by that name */
  node?: NodeFacts;
  /** the node's NodeFence (named after it), if any */
  fence?: FenceFacts;
}

export type StoppedReason =
  | 'not-scheduled'
  | 'finished'
  | 'removed-by-kubelet'
  | 'node-fenced'
  | 'node-rebooted'
  | 'node-gone';

export type RunningReason =
  /** not Terminating, its node Ready: it runs */
  | 'running'
  /** Terminating on a Ready node: its kubelet is stopping it and will confirm */
  | 'terminating'
  /** its node is not Ready and not fenced: nobody can say whether it still runs */
  | 'node-unreachable'
  /** the API no longer lists it, and nothing saw its kubelet confirm the end */
  | 'unconfirmed-removal'
  /** the API no longer lists it and where it ran is not known */
  | 'node-unknown';

export type StopVerdict =
  | { stopped: true; reason: StoppedReason; text: string }
  | { stopped: false; reason: RunningReason; text: string };

const TERMINAL = new Set(['Succeeded', 'Failed']);

const stopped = (reason: StoppedReason, text: string): StopVerdict => ({ stopped: true, reason, text });
const running = (reason: RunningReason, text: string): StopVerdict => ({ stopped: false, reason, text });

export function holderStopped(f: HolderFacts): StopVerdict {
  const nodeName = f.pod ? f.pod.nodeName : (f.departure?.nodeName ?? f.nodeName);
  if (f.pod && !nodeName)
    return stopped('not-scheduled', `${f.name} is not scheduled to any node: it runs nowhere`);
  if (!f.pod && f.departure?.confirmed)
    return stopped(
      'removed-by-kubelet',
      `${f.name} was removed by its kubelet after it reported the end${nodeName ? ` on ${nodeName}` : ''}`,
    );
  if (!nodeName)
    return running(
      'node-unknown',
      `${f.name}: gone from the API, and where it ran is not known: nothing confirms it stopped`,
    );
  if (!f.node)
    return stopped(
      'node-gone',
      `node ${nodeName} of ${f.name} no longer exists: Kubernetes takes that as confirmation that its processes are gone`,
    );
  const fence = fenceOfBoot(f, nodeName);
  // A pod the API still lists on a node that booted again, neither finished nor Terminating, is
  // started again by that node's kubelet (restartPolicy): the old boot's processes are gone, but
  // the pod may run in the new one. Only its node's state can tell (fault run, seeds 3 and 4: a
  // pod restarted in place held its instance ID while it was given to another pod).
  const rebooted = Boolean(f.bootId && f.node.bootId && f.bootId !== f.node.bootId);
  const restartable = f.pod && !f.pod.deletionTimestamp && !TERMINAL.has(f.pod.phase ?? '');
  if (rebooted && restartable) return afterRestart(f, f.pod as HolderPod, nodeName, f.node);
  if (fence.fenced) return stopped('node-fenced', fence.text);
  if (rebooted)
    return stopped(
      'node-rebooted',
      `node ${nodeName} booted again since ${f.name} ran there (bootID ${f.node.bootId}, was ${f.bootId}): its processes are gone`,
    );
  const ready = f.node.ready === 'True';
  if (!ready)
    return running(
      'node-unreachable',
      `${f.name} on ${nodeName}: node ${readyWords(f.node)}, not fenced${f.fence ? ` (${fence.text})` : ''}`,
    );
  if (!f.pod)
    return running(
      'unconfirmed-removal',
      `${f.name} on ${nodeName}: left the API without its kubelet confirming the end (force-deleted, or while no Palisade replica watched); fencing or rebooting ${nodeName} confirms it`,
    );
  if (f.pod.phase && TERMINAL.has(f.pod.phase))
    return stopped('finished', `${f.name} ${f.pod.phase}: its kubelet on Ready node ${nodeName} reported it`);
  if (f.pod.deletionTimestamp)
    return running(
      'terminating',
      `${f.name} on ${nodeName}: Terminating, its kubelet (node Ready) is stopping it`,
    );
  return running('running', `${f.name} on ${nodeName}: running`);
}

/** A listed pod on a node that booted since it ran there: it runs again once its kubelet is up. */
function afterRestart(f: HolderFacts, pod: HolderPod, nodeName: string, node: NodeFacts): StopVerdict {
  const boot = `node ${nodeName} booted again (bootID ${node.bootId}, was ${f.bootId})`;
  if (node.ready !== 'True')
    return running(
      'node-unreachable',
      `${f.name} on ${nodeName}: ${boot} and its kubelet restarts the pods it still has; node ${readyWords(node)}`,
    );
  return running('running', `${pod.name} on ${nodeName}: running again since ${boot}`);
}

/** fenceState, and the fence must be about the boot the pod ran in (or the node's boot now). */
function fenceOfBoot(f: HolderFacts, nodeName: string) {
  const s = fenceState(f.node, nodeName, f.fence);
  const boot = f.bootId ?? f.node?.bootId;
  if (s.fenced && f.fence?.nodeBootId && boot && f.fence.nodeBootId !== boot)
    return {
      fenced: false,
      text: `NodeFence ${f.fence.name} is about an earlier boot of ${nodeName} (bootID ${f.fence.nodeBootId}), not the one ${f.name} ran in (${boot})`,
    };
  return s;
}
