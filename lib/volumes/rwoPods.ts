// The pods of one volume, split into users (the volume is, or is being, made available to
// them on their node) and waiters (scheduled, but the volume cannot come to their node: held
// by another node for an exclusive volume — the Multi-Attach error — or the attach fails or
// has not happened yet). Pure.
import type { PodView } from '../console/protocol.js';
import { attachErrorOf } from './rwoDetach.js';
import type {
  AttachmentInput,
  EventInput,
  NodeHealth,
  PodRefRow,
  VolumeUser,
  VolumeWaiter,
} from './rwoTypes.js';

const VOLUME_IN_MESSAGE = /for volume "([^"]+)"/;

/**
 * What a FailedAttachVolume message is about. kube-controller-manager writes
 * `Multi-Attach error for volume "<pv>" Volume is already exclusively attached to one node
 * and can't be attached to another` (or "... already used by pod(s) ..."), and
 * `AttachVolume.Attach failed for volume "<pv>" : <error>` when the attach itself fails.
 */
export function attachFailure(message = ''): { pv?: string; multiAttach: boolean } {
  return { pv: VOLUME_IN_MESSAGE.exec(message)?.[1], multiAttach: message.includes('Multi-Attach error') };
}

/** A pod holds its volumes from scheduling until it is terminal or gone (Terminating included). */
export function holdsVolume(p: PodView): boolean {
  return !!p.node && p.phase !== 'Succeeded' && p.phase !== 'Failed';
}

export interface PodContext {
  pv: string;
  exclusive: boolean;
  attachments: readonly AttachmentInput[];
  health: (node: string | undefined) => NodeHealth | undefined;
  /** FailedAttachVolume events of this pod (this incarnation) */
  failures: (pod: PodView) => readonly EventInput[];
}

export function podRef(p: PodView, health: PodContext['health']): PodRefRow {
  const ref: PodRefRow = { namespace: p.namespace, name: p.name, uid: p.uid };
  if (p.node) {
    ref.node = p.node;
    ref.nodeHealth = health(p.node);
  }
  return ref;
}

export function splitPods(pods: readonly PodView[], ctx: PodContext) {
  const users: VolumeUser[] = [];
  const waiters: VolumeWaiter[] = [];
  for (const p of pods) {
    if (!holdsVolume(p)) continue;
    // a pod evicted while it waited is Terminating yet never got the volume: still a waiter
    const pending = p.state === 'Pending' || p.phase === 'Pending';
    const waiting = pending ? waiterOf(p, ctx) : undefined;
    if (waiting) waiters.push(waiting);
    else
      users.push({
        ...podRef(p, ctx.health),
        ...(p.phase ? { phase: p.phase } : {}),
        state: p.state,
        terminating: p.state === 'Terminating',
      });
  }
  return { users, waiters };
}

/** When the wait began: the first Multi-Attach event, else the pod's creation. */
function waitStart(p: PodView, events: readonly EventInput[]): Pick<VolumeWaiter, 'since' | 'sinceFrom'> {
  // an event seen once has firstTimestamp = lastTimestamp; a repeated one needs firstSeen
  const starts = events
    .map((e) => e.firstSeen ?? (e.count <= 1 ? e.lastSeen : undefined))
    .filter((t): t is number => t !== undefined);
  if (starts.length) return { since: Math.min(...starts), sinceFrom: 'event' };
  if (p.createdAt !== undefined) return { since: p.createdAt, sinceFrom: 'pod-created' };
  return { sinceFrom: 'unknown' };
}

/** A pending pod waits unless the volume is attached on its own node (then it is starting). */
function waiterOf(p: PodView, ctx: PodContext): VolumeWaiter | undefined {
  const here = ctx.attachments.find((a) => a.node === p.node);
  if (here?.attached) return undefined;
  const mine = ctx.failures(p).filter((e) => attachFailure(e.message).pv === ctx.pv);
  const multi = mine.filter((e) => attachFailure(e.message).multiAttach);
  const blockedBy = ctx.exclusive ? ctx.attachments.filter((a) => a.node !== p.node).map((a) => a.node) : [];
  const base = { ...podRef(p, ctx.health), terminating: p.state === 'Terminating', blockedBy };
  if (!here && (blockedBy.length > 0 || multi.length > 0))
    return { ...base, reason: 'multi-attach', ...waitStart(p, multi), message: multi.at(-1)?.message };
  const error =
    (here && attachErrorOf(here)) ??
    mine.filter((e) => !attachFailure(e.message).multiAttach).at(-1)?.message;
  if (error) return { ...base, reason: 'attach-error', ...waitStart(p, multi), message: error };
  return { ...base, reason: 'attaching', ...waitStart(p, multi) };
}
