// What a DELETE does to a stored object, following kube-apiserver's BeforeDelete and
// the pod strategy's CheckGracefulDelete: graceful pods get deletionTimestamp and a
// grace period (which may only shorten), finalizers hold any object, and the
// propagation policy becomes the orphan/foregroundDeletion finalizer.
import type { KubeObject } from '../resources/types.js';
import { nowRfc3339 } from './objects.js';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

export type DeletionPlan =
  /** remove; graceful kinds (pods) first write `marked` (deletionTimestamp, grace 0), as kube-apiserver does */
  | { action: 'remove'; marked?: KubeObject }
  /** keep the object, written back with these changes */
  | { action: 'update'; obj: KubeObject }
  /** graceful deletion already pending with a shorter or equal period: nothing changes */
  | { action: 'unchanged' };

export const ORPHAN = 'orphan';
export const FOREGROUND = 'foregroundDeletion';

function podGrace(pod: any, requested: number | undefined): number {
  // unscheduled and finished pods have nothing to stop: they go at once
  if (!pod.spec?.nodeName) return 0;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return 0;
  const g = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  return g < 0 ? 1 : g;
}

function propagationFinalizer(opts: DeleteOptions): string | undefined {
  if (
    opts.propagationPolicy === 'Orphan' ||
    (opts.propagationPolicy === undefined && opts.orphanDependents === true)
  )
    return ORPHAN;
  if (opts.propagationPolicy === 'Foreground') return FOREGROUND;
  return undefined;
}

export function planDeletion(
  existing: KubeObject,
  opts: DeleteOptions,
  graceful: boolean,
  now = new Date(),
): DeletionPlan {
  const obj = structuredClone(existing);
  const meta = obj.metadata;
  const pendingGrace = meta.deletionGracePeriodSeconds;
  const finalizers = new Set(meta.finalizers ?? []);
  const extra = meta.deletionTimestamp ? undefined : propagationFinalizer(opts);
  if (extra) finalizers.add(extra);

  if (meta.deletionTimestamp) {
    // already being deleted: only a shorter grace period changes anything
    if (!graceful || pendingGrace === undefined || pendingGrace === 0)
      return finalizers.size ? { action: 'unchanged' } : { action: 'remove' };
    if (opts.gracePeriodSeconds === undefined || opts.gracePeriodSeconds >= pendingGrace)
      return { action: 'unchanged' };
    const started = Date.parse(meta.deletionTimestamp) - pendingGrace * 1000;
    meta.deletionTimestamp = nowRfc3339(new Date(started + opts.gracePeriodSeconds * 1000));
    meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.gracePeriodSeconds === 0 && finalizers.size === 0) return { action: 'remove', marked: obj };
    return { action: 'update', obj };
  }

  const grace = graceful ? podGrace(obj, opts.gracePeriodSeconds) : 0;
  meta.deletionTimestamp = nowRfc3339(new Date(now.getTime() + grace * 1000));
  meta.deletionGracePeriodSeconds = grace;
  bumpGeneration(obj);
  if (grace === 0 && finalizers.size === 0)
    return graceful ? { action: 'remove', marked: obj } : { action: 'remove' };
  if (finalizers.size) meta.finalizers = [...finalizers];
  return { action: 'update', obj };
}

/**
 * The first deletionTimestamp changes what an object's controllers may do, so kube-apiserver
 * bumps a generational object's metadata.generation with it (BeforeDelete, markAsDeleting).
 */
export function bumpGeneration(obj: KubeObject) {
  const g = obj.metadata.generation;
  if (typeof g === 'number' && g > 0) obj.metadata.generation = g + 1;
}

/**
 * The grace period kube-apiserver puts into a pod DELETE's options before admission
 * (CheckGracefulDelete): the requested or the pod's own, 0 for a pod that is not scheduled
 * or has finished.
 */
export function effectiveGrace(pod: KubeObject, requested: number | undefined): number {
  return podGrace(pod, requested);
}

/** An update that clears the last finalizer of an object being deleted removes it. */
export function shouldRemoveAfterUpdate(updated: KubeObject, old: KubeObject): boolean {
  const m = updated.metadata;
  if ((m.finalizers?.length ?? 0) > 0) return false;
  if ((old.metadata.finalizers?.length ?? 0) === 0) return false;
  if (!m.deletionTimestamp) return false;
  return !(m.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds > 0);
}
