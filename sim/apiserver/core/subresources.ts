// pods/binding, pods/eviction (honouring PodDisruptionBudgets with the real 429) and
// the scale subresource of apps/v1 workloads.
import { labelSelectorMatches, labelSelectorToString } from '../../../lib/kube/labelSelector.js';
import { StatusError, errors } from '../http/errors.js';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import type { ApiCore } from './api.js';
import type { WriteOptions } from './context.js';
import type { DeleteOptions } from './deletion.js';
import { dryRunRequested, writeOptionsForReview } from './dryRun.js';
import { isObject, nowRfc3339 } from './objects.js';
import { deleteOne } from './remove.js';

type Obj = Record<string, any>;
const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

export async function bindPod(
  core: ApiCore,
  pods: ResourceInfo,
  ns: string,
  name: string,
  body: Obj,
  o: WriteOptions,
) {
  const node = body?.target?.name;
  if (!isObject(body) || typeof node !== 'string' || !node)
    throw errors.invalid('Binding', '', name, [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' },
    ]);
  if (body.metadata?.name && body.metadata.name !== name)
    throw errors.badRequest(
      `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
    );
  const bindingRes = { group: '', plural: 'pods/binding' };
  const warnings = await core.admit({
    operation: 'CREATE',
    resource: pods,
    subresource: 'binding',
    kind: { group: '', version: 'v1', kind: 'Binding' },
    namespace: ns,
    name,
    object: {
      apiVersion: 'v1',
      kind: 'Binding',
      ...body,
      metadata: { ...(body.metadata ?? {}), name, namespace: ns },
    },
    options: writeOptionsForReview(o),
    dryRun: o.dryRun,
    user: o.user,
  });
  const current = core.getStored(pods, ns, name);
  const pod = structuredClone(current.obj) as Obj;
  if (pod.metadata.deletionTimestamp)
    throw errors.conflict(bindingRes, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (pod.spec?.nodeName)
    throw errors.conflict(bindingRes, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
  pod.spec.nodeName = node;
  const conditions: Obj[] = (pod.status.conditions ??= []).filter((c: Obj) => c.type !== 'PodScheduled');
  conditions.push({
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: nowRfc3339(),
  });
  pod.status.conditions = conditions;
  if (!o.dryRun) core.store.put(core.key(pods), pod as KubeObject);
  return { obj: success, warnings, code: 201 };
}

const pdbResource = (core: ApiCore) => core.registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;

function matchingPdbs(core: ApiCore, ns: string, pod: KubeObject): KubeObject[] {
  const { items } = core.list(pdbResource(core), ns, {});
  return items
    .map((s) => s.obj)
    .filter((p) =>
      labelSelectorMatches((p as Obj).spec?.selector, pod.metadata.labels, { nilMatches: false }),
    );
}

function budgetDenied(message: string, retryAfterSeconds?: number) {
  return errors.tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [{ reason: 'DisruptionBudget', message }],
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
}

/** Take one disruption from the budget with compare-and-swap, or say why not. */
async function chargeBudget(core: ApiCore, pdb: KubeObject, podName: string, o: WriteOptions) {
  const p = pdb as Obj;
  const status: Obj = p.status ?? {};
  if ((status.observedGeneration ?? 0) < (p.metadata.generation ?? 0)) {
    // kube-apiserver suggests coming back in 10 s (Retry-After) while the controller catches up
    throw budgetDenied(
      `The disruption budget ${p.metadata.name} is still being processed by the server.`,
      10,
    );
  }
  if ((status.disruptionsAllowed ?? 0) < 0) throw errors.forbidden('pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > 2000)
    throw errors.forbidden('DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if ((status.disruptionsAllowed ?? 0) === 0) {
    throw budgetDenied(
      `The disruption budget ${p.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
    );
  }
  if (o.dryRun) return;
  const next = structuredClone(p);
  next.status.disruptionsAllowed -= 1;
  next.status.disruptedPods = { ...(next.status.disruptedPods ?? {}), [podName]: nowRfc3339() };
  await core.writeLoop(
    pdbResource(core),
    p.metadata.namespace,
    p.metadata.name,
    { ...o, dryRun: false },
    'status',
    () => next as KubeObject,
    p.metadata.resourceVersion,
  );
}

/**
 * kube-apiserver's propagateDryRun: a dry run asked for in the query or in the Eviction's
 * deleteOptions makes the whole eviction dry (budget charge and delete). A query dry run is
 * copied into deleteOptions the eviction already carries, and a body dry run into the
 * CreateOptions; the review's own dryRun flag stays the query's, as it is fixed before.
 */
function evictionDryRun(body: Obj, o: WriteOptions) {
  const given = body.deleteOptions;
  if (given !== undefined && given !== null && !isObject(given))
    throw errors.badRequest('deleteOptions in the Eviction must be an object');
  const bodyDry = dryRunRequested(given?.dryRun);
  const dry = o.dryRun || bodyDry;
  const shown = given && dry && !bodyDry ? { ...given, dryRun: ['All'] } : given;
  const deleteOptions: DeleteOptions = { ...(given ?? {}), ...(dry ? { dryRun: ['All'] } : {}) };
  return { dry, shown, deleteOptions };
}

export async function evictPod(
  core: ApiCore,
  pods: ResourceInfo,
  ns: string,
  name: string,
  body: Obj,
  o: WriteOptions,
) {
  if (!isObject(body) || (body.kind && body.kind !== 'Eviction'))
    throw errors.badRequest('expected an Eviction object');
  if (body.metadata?.name && body.metadata.name !== name)
    throw errors.badRequest(`name in URL does not match name in Eviction object`);
  const version =
    typeof body.apiVersion === 'string' && body.apiVersion.startsWith('policy/')
      ? body.apiVersion.slice(7)
      : 'v1';
  const { dry, shown, deleteOptions } = evictionDryRun(body, o);
  const eviction = {
    apiVersion: `policy/${version}`,
    kind: 'Eviction',
    ...body,
    ...(shown ? { deleteOptions: shown } : {}),
    metadata: { ...(body.metadata ?? {}), name, namespace: ns },
  };
  const warnings = await core.admit({
    operation: 'CREATE',
    resource: pods,
    subresource: 'eviction',
    kind: { group: 'policy', version, kind: 'Eviction' },
    namespace: ns,
    name,
    object: eviction,
    options: writeOptionsForReview({ ...o, dryRun: dry }),
    dryRun: o.dryRun,
    user: o.user,
  });
  const eo: WriteOptions = { ...o, dryRun: dry };
  const pod = core.getStored(pods, ns, name).obj as Obj;
  // a pod that is finished, not yet running, or already terminating costs no disruption
  const ignoreBudget =
    ['Succeeded', 'Failed', 'Pending'].includes(pod.status?.phase) || !!pod.metadata.deletionTimestamp;
  if (!ignoreBudget) {
    const pdbs = matchingPdbs(core, ns, pod as KubeObject);
    if (pdbs.length > 1)
      throw new StatusError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    if (pdbs.length === 1) await chargeBudget(core, pdbs[0], name, eo);
  }
  // the delete that follows an eviction does not go through DELETE admission again
  await deleteOne(core, pods, ns, name, deleteOptions, { ...eo, skipAdmission: true });
  return { obj: success, warnings, code: 201 };
}

// ---- scale ---------------------------------------------------------------------------

export function toScale(_r: ResourceInfo, o: KubeObject): Obj {
  const x = o as Obj;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: x.metadata.name,
      namespace: x.metadata.namespace,
      uid: x.metadata.uid,
      resourceVersion: x.metadata.resourceVersion,
      creationTimestamp: x.metadata.creationTimestamp,
    },
    spec: { replicas: x.spec?.replicas ?? 0 },
    status: {
      replicas: x.status?.replicas ?? 0,
      selector: x.spec?.selector ? labelSelectorToString(x.spec.selector) : '',
    },
  };
}

export async function updateScale(
  core: ApiCore,
  r: ResourceInfo,
  ns: string,
  name: string,
  produce: (scale: Obj) => Obj,
  o: WriteOptions,
) {
  let wantRv: string | undefined;
  const res = await core.writeLoop(
    r,
    ns,
    name,
    o,
    '',
    (current) => {
      const scale = produce(toScale(r, current));
      if (typeof scale?.spec?.replicas !== 'number' || scale.spec.replicas < 0) {
        throw errors.invalid('Scale', 'autoscaling', name, [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${scale?.spec?.replicas}: must be greater than or equal to 0`,
            field: 'spec.replicas',
          },
        ]);
      }
      wantRv = scale.metadata?.resourceVersion;
      if (wantRv && wantRv !== current.metadata.resourceVersion) throw errors.staleConflict(r, name);
      (current as Obj).spec.replicas = scale.spec.replicas;
      return current;
    },
    undefined,
  );
  return { ...res, obj: toScale(r, res.obj) };
}
