// DELETE and deletecollection: preconditions, admission, then the deletion plan
// (graceful pods, finalizers, propagation finalizers, namespace and CRD cleanup).
import type { StatusBody } from '../http/errors.js';
import { errors } from '../http/errors.js';
import { type KubeObject, type ResourceInfo, qualifiedResource } from '../resources/types.js';
import type { ApiCore, ListQuery } from './api.js';
import type { WriteOptions, WriteResult } from './context.js';
import {
  type DeleteOptions,
  type DeletionPlan,
  bumpGeneration,
  effectiveGrace,
  planDeletion,
} from './deletion.js';
import { clone, nowRfc3339 } from './objects.js';
import { isNotFound } from '../../../lib/kube/errorText.js';

export const CRD_CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * rest.BeforeDelete checks the preconditions first, naming the object by its kind (a
 * GroupResource built from the kind, so "Pod" and "Deployment.apps", not "pods").
 */
function checkPreconditions(
  r: ResourceInfo,
  name: string,
  obj: KubeObject,
  p: DeleteOptions['preconditions'],
) {
  const byKind = { group: r.group, plural: r.kind };
  if (p?.uid && p.uid !== obj.metadata.uid) {
    throw errors.conflict(
      byKind,
      name,
      `the UID in the precondition (${p.uid}) does not match the UID in record (${obj.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (p?.resourceVersion && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw errors.conflict(
      byKind,
      name,
      `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}

/** the DeleteOptions admission sees: a pod's effective grace period is filled in (CheckGracefulDelete) */
function reviewedOptions(r: ResourceInfo, obj: KubeObject, opts: DeleteOptions): Record<string, unknown> {
  if (!isPods(r) || obj.metadata.deletionTimestamp) return opts as Record<string, unknown>;
  return { ...opts, gracePeriodSeconds: effectiveGrace(obj, opts.gracePeriodSeconds) };
}

const isPods = (r: ResourceInfo) => r.group === '' && r.plural === 'pods';
const isNamespaces = (r: ResourceInfo) => r.group === '' && r.plural === 'namespaces';
const isCrds = (r: ResourceInfo) =>
  r.group === 'apiextensions.k8s.io' && r.plural === 'customresourcedefinitions';

/** Namespaces and CRDs are emptied by a cleanup loop before they go. */
function planSpecial(r: ResourceInfo, obj: KubeObject, opts: DeleteOptions): DeletionPlan {
  if (obj.metadata.deletionTimestamp) return { action: 'unchanged' as const };
  const next = clone(obj);
  next.metadata.deletionTimestamp = nowRfc3339();
  // the namespace REST strategy sets only the timestamp; other objects get markAsDeleting's 0
  if (!isNamespaces(r)) next.metadata.deletionGracePeriodSeconds = 0;
  bumpGeneration(next);
  if (isNamespaces(r)) {
    (next as any).status = { ...((next as any).status ?? {}), phase: 'Terminating' };
    if (!((next as any).spec?.finalizers ?? []).length && !(next.metadata.finalizers ?? []).length)
      return { action: 'remove' as const };
  } else {
    next.metadata.finalizers = [...new Set([...(next.metadata.finalizers ?? []), CRD_CLEANUP])];
  }
  const prop = planDeletion(
    { ...next, metadata: { ...next.metadata, deletionTimestamp: undefined } },
    opts,
    false,
  );
  if (prop.action === 'update')
    next.metadata.finalizers = [
      ...new Set([...(next.metadata.finalizers ?? []), ...(prop.obj.metadata.finalizers ?? [])]),
    ];
  return { action: 'update' as const, obj: next };
}

/**
 * kube-apiserver's BeforeDelete: a pod already terminating whose grace period this DELETE
 * does not shorten is a pending graceful deletion, answered with the object as it is and
 * without calling admission (no webhook sees a repeated DELETE; one that shortens the grace,
 * e.g. --grace-period=0, is admitted as usual).
 */
function pendingGraceful(r: ResourceInfo, obj: KubeObject, opts: DeleteOptions): boolean {
  if (!isPods(r) || !obj.metadata.deletionTimestamp) return false;
  const current = obj.metadata.deletionGracePeriodSeconds;
  const shortens = opts.gracePeriodSeconds != null && current != null && opts.gracePeriodSeconds < current;
  return !shortens;
}

export function successStatus(r: ResourceInfo, obj: KubeObject): StatusBody {
  const details: NonNullable<StatusBody['details']> = {
    name: obj.metadata.name,
    kind: r.plural,
    uid: obj.metadata.uid,
  };
  if (r.group) details.group = r.group;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details,
  } as unknown as StatusBody;
}

export async function deleteOne(
  core: ApiCore,
  r: ResourceInfo,
  ns: string | undefined,
  name: string,
  opts: DeleteOptions,
  o: WriteOptions,
  inCollection = false,
): Promise<WriteResult<KubeObject | StatusBody>> {
  for (let attempt = 0; ; attempt++) {
    const current = core.getStored(r, ns, name);
    checkPreconditions(r, name, current.obj, opts.preconditions);
    const warnings =
      o.skipAdmission || pendingGraceful(r, current.obj, opts)
        ? []
        : await core.admit({
            operation: 'DELETE',
            resource: r,
            subresource: '',
            kind: { group: r.group, version: r.version, kind: r.kind },
            namespace: current.obj.metadata.namespace,
            // deletecollection admits each item with the collection request's attributes:
            // no name, and the options as sent (each item's delete works on a copy of them)
            name: inCollection ? '' : name,
            object: null,
            oldObject: current.obj,
            options: inCollection ? (opts as Record<string, unknown>) : reviewedOptions(r, current.obj, opts),
            dryRun: o.dryRun,
            user: o.user,
          });
    const now = core.store.get(core.key(r), current.obj.metadata.namespace, name);
    if (!now) throw errors.notFound(r, name);
    if (now.rv !== current.rv) {
      if (opts.preconditions?.resourceVersion || attempt >= 5) throw errors.staleConflict(r, name);
      continue;
    }
    return applyPlan(core, r, current.obj, opts, o, warnings);
  }
}

function applyPlan(
  core: ApiCore,
  r: ResourceInfo,
  obj: KubeObject,
  opts: DeleteOptions,
  o: WriteOptions,
  warnings: string[],
): WriteResult<KubeObject | StatusBody> {
  const plan = isNamespaces(r) || isCrds(r) ? planSpecial(r, obj, opts) : planDeletion(obj, opts, isPods(r));
  const key = core.key(r);
  if (plan.action === 'unchanged') return { obj, warnings, code: 200 };
  if (plan.action === 'update') {
    if (o.dryRun) return { obj: plan.obj, warnings, code: 200 };
    const stored = core.store.put(key, plan.obj);
    return { obj: stored.obj, warnings, code: 200 };
  }
  if (o.dryRun) return { obj: isPods(r) ? obj : successStatus(r, obj), warnings, code: 200 };
  // watchers see the pod marked for deletion (MODIFIED) before it goes (DELETED)
  if (plan.marked) core.store.put(key, plan.marked);
  const removed = core.store.remove(key, obj.metadata.namespace, obj.metadata.name!)!;
  core.afterRemove(r, removed.obj);
  return { obj: isPods(r) || r.custom ? removed.obj : successStatus(r, removed.obj), warnings, code: 200 };
}

export async function deleteCollection(
  core: ApiCore,
  r: ResourceInfo,
  ns: string | undefined,
  q: ListQuery,
  opts: DeleteOptions,
  o: WriteOptions,
): Promise<{ items: KubeObject[]; warnings: string[] }> {
  const { items } = core.list(r, ns, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
  const out: KubeObject[] = [];
  const warnings: string[] = [];
  for (const s of items) {
    try {
      const res = await deleteOne(core, r, s.obj.metadata.namespace, s.obj.metadata.name!, opts, o, true);
      warnings.push(...res.warnings);
      out.push(s.obj);
    } catch (e) {
      // an object that vanished meanwhile is already gone, which is what was asked
      if (!isNotFound(e)) throw e;
    }
  }
  return { items: out, warnings };
}

export function notAllowed(r: ResourceInfo, verb: string) {
  return errors.methodNotAllowed(`${verb} is not supported on ${qualifiedResource(r)}`);
}
