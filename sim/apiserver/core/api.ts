// The API server's storage semantics: create, update, patch, delete and reads with
// validation, defaulting, admission webhooks and optimistic concurrency. The HTTP
// layer only parses requests and renders results; everything a client can observe
// about an object's life is decided here.
import { randomUUID } from 'node:crypto';
import {
  type FieldRequirement,
  checkSupportedFields,
  matchesFields,
  parseFieldSelector,
} from '../../rules/kube/fieldSelector.js';
import {
  type LabelRequirement,
  matchesRequirements,
  parseLabelSelector,
  SelectorError,
} from '../../../lib/kube/labelSelector.js';
import type { AdmissionAttributes } from '../admission/match.js';
import type { WebhookClientAuth } from '../admission/clientAuth.js';
import { WebhookAdmission } from '../admission/webhooks.js';
import { crdResources, establishedStatus, storageVersion, validateCrd } from '../crd/definitions.js';
import { compileSchema, prune, validateAgainst } from '../crd/schema.js';
import { StatusError, errors } from '../http/errors.js';
import { PatchError, applyPatch, supportsStrategic, type PatchType } from '../patch/index.js';
import { ResourceRegistry } from '../resources/registry.js';
import { type KubeObject, type ResourceInfo, apiVersionOf, qualifiedResource } from '../resources/types.js';
import { Collection } from '../store/collection.js';
import { Store, type Stored } from '../store/store.js';
import type { WriteOptions, WriteResult } from './context.js';
import { applyCreateDefaults, applyWriteDefaults, labelNamespace, tracksGeneration } from './defaults.js';
import { shouldRemoveAfterUpdate } from './deletion.js';
import { writeOptionsForReview } from './dryRun.js';
import { dropEmptyStatus } from './omitEmpty.js';
import { fieldsOf, supportedFields } from './fields.js';
import { checkMicroTimes, checkPatchedMicroTimes } from './microTime.js';
import { generateName, validateName } from './names.js';
import { admitServiceAccount } from './serviceAccount.js';
import { clone, isObject, nowRfc3339, sameValue, specOf } from './objects.js';
import { validateAnnotationsSize, validateCreate, validateUpdate } from './validation.js';

export interface CoreOptions {
  watchWindow: number;
  defaultTolerationSeconds: number;
  serviceHosts: Record<string, string>;
  /** credentials for admission webhooks (--admission-control-config-file) */
  webhookClientAuth?: WebhookClientAuth;
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
  /** resourceVersionMatch=Exact: the collection as it was at this resourceVersion */
  exactRv?: number;
}

export interface Selection {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

const MAX_RETRIES = 5;

/** refuses (throws) a client's write of an RBAC object that grants more than its user holds */
export type RbacWriteCheck = (
  r: ResourceInfo,
  obj: KubeObject,
  old: KubeObject | undefined,
  o: WriteOptions,
) => void;

export class ApiCore {
  readonly store: Store;
  /** RBAC escalation prevention, set by the server's authorizer */
  rbacWriteCheck?: RbacWriteCheck;
  readonly registry = new ResourceRegistry();
  readonly admission: WebhookAdmission;
  private readonly validators = new Map<
    string,
    { validate: ReturnType<typeof compileSchema>; schema: any }
  >();

  constructor(readonly opts: CoreOptions) {
    this.store = new Store({ watchWindow: opts.watchWindow });
    this.admission = new WebhookAdmission({
      configurations: () =>
        [
          ...this.store
            .collection('admissionregistration.k8s.io/validatingwebhookconfigurations')
            .items.values(),
        ].map((s) => s.obj),
      namespaceLabels: (ns) => this.store.get('/namespaces', undefined, ns)?.obj.metadata.labels ?? {},
      serviceHosts: opts.serviceHosts,
      clientAuth: () => opts.webhookClientAuth,
    });
  }

  key(r: ResourceInfo): string {
    return ResourceRegistry.storageKey(r);
  }

  /** Stored objects keep the version they were written in; present them in the requested one. */
  present(r: ResourceInfo, s: Stored): { obj: KubeObject; json: string } {
    const want = apiVersionOf(r);
    if (s.obj.apiVersion === want) return s;
    const obj = { ...s.obj, apiVersion: want };
    return { obj, json: JSON.stringify(obj) };
  }

  getStored(r: ResourceInfo, ns: string | undefined, name: string): Stored {
    const s = this.store.get(this.key(r), r.namespaced ? ns : undefined, name);
    if (!s) throw errors.notFound(r, name);
    return s;
  }

  parseSelection(r: ResourceInfo, q: ListQuery): Selection {
    try {
      const labels = parseLabelSelector(q.labelSelector ?? '');
      const fields = parseFieldSelector(q.fieldSelector ?? '');
      checkSupportedFields(fields, supportedFields(r));
      return { labels, fields };
    } catch (e) {
      if (e instanceof SelectorError) throw errors.badRequest(e.message);
      throw e;
    }
  }

  matches(r: ResourceInfo, sel: Selection, o: KubeObject): boolean {
    if (sel.labels.length && !matchesRequirements(sel.labels, o.metadata.labels)) return false;
    if (
      sel.fields.length &&
      !matchesFields(
        sel.fields,
        fieldsOf(
          r,
          o,
          sel.fields.map((f) => f.field),
        ),
      )
    )
      return false;
    return true;
  }

  list(
    r: ResourceInfo,
    ns: string | undefined,
    q: ListQuery,
  ): { items: Stored[]; rv: number; continueToken?: string; remaining?: number } {
    const sel = this.parseSelection(r, q);
    const c = this.store.collection(this.key(r));
    let rv = this.store.currentRv();
    let view: Map<string, Stored> = c.items;
    let keys = c.keys();
    if (q.exactRv !== undefined && q.exactRv < rv) {
      view = stateAt(c, q.exactRv);
      keys = [...view.keys()].sort();
      rv = q.exactRv;
    }
    if (ns && r.namespaced) keys = rangeWithPrefix(keys, `${ns}/`);
    let start = 0;
    if (q.continueToken) {
      const after = decodeContinue(q.continueToken);
      start = upperBound(keys, after);
    }
    const items: Stored[] = [];
    const limit = q.limit && q.limit > 0 ? q.limit : Number.POSITIVE_INFINITY;
    let i = start;
    for (; i < keys.length && items.length < limit; i++) {
      const s = view.get(keys[i])!;
      if (this.matches(r, sel, s.obj)) items.push(s);
    }
    if (i < keys.length && items.length >= limit) {
      const last = keys[i - 1];
      return {
        items,
        rv,
        continueToken: encodeContinue(last, rv),
        remaining: sel.labels.length || sel.fields.length ? undefined : keys.length - i,
      };
    }
    return { items, rv };
  }

  // ---- writes -------------------------------------------------------------------

  async admit(a: AdmissionAttributes): Promise<string[]> {
    return this.admission.validate(a);
  }

  private attrs(
    r: ResourceInfo,
    op: AdmissionAttributes['operation'],
    o: WriteOptions,
    rest: Partial<AdmissionAttributes>,
  ): AdmissionAttributes {
    return {
      operation: op,
      resource: r,
      subresource: '',
      kind: { group: r.group, version: r.version, kind: r.kind },
      options: writeOptionsForReview(o),
      dryRun: o.dryRun,
      user: o.user,
      ...rest,
    };
  }

  private checkNamespace(r: ResourceInfo, ns: string | undefined, forCreate: boolean, name = '') {
    if (!r.namespaced) return;
    const nsObj = this.store.get('/namespaces', undefined, ns ?? '');
    if (!nsObj) throw errors.notFound({ group: '', plural: 'namespaces' }, ns ?? '');
    if (forCreate && nsObj.obj.metadata.deletionTimestamp) {
      const e = errors.forbidden(
        `${qualifiedResource(r)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        r,
        name,
      );
      // the NamespaceLifecycle admission plugin names the cause, which clients test for
      e.details!.causes = [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${ns} is being terminated`,
          field: 'metadata.namespace',
        },
      ];
      throw e;
    }
  }

  private checkKind(r: ResourceInfo, body: KubeObject) {
    if (body.apiVersion && body.apiVersion !== apiVersionOf(r)) {
      throw errors.badRequest(
        `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(r)})`,
      );
    }
    if (body.kind && body.kind !== r.kind)
      throw errors.badRequest(
        `the kind in the data (${body.kind}) does not match the expected kind (${r.kind})`,
      );
    checkMicroTimes(r, body);
  }

  /** Validation shared by create and update: names, kind rules, CRD schemas. */
  private validate(r: ResourceInfo, obj: KubeObject, old?: KubeObject) {
    // RBAC objects, like custom ones, only need a name that is one path segment (system:basic-user)
    const causes = old
      ? []
      : validateName(r.kind, obj.metadata.name, !!r.custom || r.group === 'rbac.authorization.k8s.io');
    if (!r.custom)
      causes.push(
        ...(old ? validateUpdate(r.kind, r.group, obj, old) : validateCreate(r.kind, r.group, obj)),
      );
    causes.push(...validateAnnotationsSize(obj.metadata.annotations));
    if (r.group === 'apiextensions.k8s.io') causes.push(...validateCrd(obj));
    const v = this.validators.get(`${r.group}/${r.version}/${r.plural}`);
    if (v) causes.push(...validateAgainst(v.validate, obj));
    if (old?.metadata.deletionTimestamp) {
      const added = (obj.metadata.finalizers ?? []).filter(
        (f) => !(old.metadata.finalizers ?? []).includes(f),
      );
      // kube-apiserver reports this twice (ValidateObjectMetaUpdate runs in the strategy's
      // update validation and again in the generic one), with Go's %#v of the new ones
      const cause = {
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${[
          ...new Set(added),
        ]
          .sort()
          .map((f) => JSON.stringify(f))
          .join(', ')}}`,
        field: 'metadata.finalizers',
      };
      if (added.length) causes.push(cause, { ...cause });
    }
    if (causes.length) throw errors.invalid(r.kind, r.group, obj.metadata.name ?? '', causes);
  }

  /** pruned fields come back as kube-apiserver's warnings (fieldValidation=Warn, the default) */
  private pruneCustom(r: ResourceInfo, obj: KubeObject, warnings: string[] = []) {
    const v = this.validators.get(`${r.group}/${r.version}/${r.plural}`);
    const dropped: string[] = [];
    if (v) prune(obj, v.schema, true, dropped);
    for (const f of dropped) warnings.push(`unknown field "${f}"`);
  }

  async create(
    r: ResourceInfo,
    ns: string | undefined,
    body: KubeObject,
    o: WriteOptions,
  ): Promise<WriteResult<KubeObject>> {
    this.checkKind(r, body);
    if (!isObject(body.metadata)) body.metadata = {};
    const obj = clone(body);
    obj.apiVersion = apiVersionOf(r);
    obj.kind = r.kind;
    const meta = obj.metadata;
    if (r.namespaced) {
      if (meta.namespace && ns && meta.namespace !== ns)
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      meta.namespace = ns ?? meta.namespace;
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    for (const k of [
      'resourceVersion',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'selfLink',
    ] as const)
      delete meta[k];
    meta.uid = randomUUID();
    meta.creationTimestamp = nowRfc3339();
    if (tracksGeneration(r.kind, r.group, !!r.custom)) meta.generation = 1;
    else delete meta.generation;
    applyCreateDefaults(r.kind, r.group, obj, {
      defaultTolerationSeconds: this.opts.defaultTolerationSeconds,
    });
    const pruned: string[] = [];
    if (r.custom) {
      this.pruneCustom(r, obj, pruned);
      if (r.subresources.includes('status')) delete obj.status;
    }
    if (r.group === '' && r.kind === 'Pod')
      await admitServiceAccount(obj, (sns, name) => this.store.get('/serviceaccounts', sns, name)?.obj);
    // kube-apiserver's RBAC storage checks escalation before it validates
    if (o.escalationCheck && r.group === 'rbac.authorization.k8s.io')
      this.rbacWriteCheck?.(r, obj, undefined, o);
    this.validate(r, obj);
    this.checkNamespace(r, meta.namespace, true, meta.name);
    if (r.group === 'apiextensions.k8s.io') obj.status = establishedStatus(obj);
    const warnings = [
      ...pruned,
      ...(await this.admit(
        this.attrs(r, 'CREATE', o, { namespace: meta.namespace, name: meta.name, object: obj }),
      )),
    ];
    if (this.store.get(this.key(r), meta.namespace, meta.name!)) throw errors.alreadyExists(r, meta.name!);
    if (r.namespaced) this.checkNamespace(r, meta.namespace, true, meta.name);
    dropEmptyStatus(obj);
    if (o.dryRun) return { obj, warnings, code: 201 };
    const stored = this.store.put(this.key(r), obj);
    this.afterWrite(r, stored.obj);
    return { obj: stored.obj, json: stored.json, warnings, code: 201 };
  }

  /** Merge an incoming full object over the stored one as PUT does, for the main resource or status. */
  private prepareUpdate(
    r: ResourceInfo,
    old: KubeObject,
    incoming: KubeObject,
    subresource: string,
    pruned: string[] = [],
  ): KubeObject {
    let obj: KubeObject;
    if (subresource === 'status' && !r.custom) {
      obj = statusWriteOfBuiltin(r, old, incoming);
    } else if (subresource === 'status') {
      // a custom resource's status strategy takes everything but the status from the old object
      obj = clone(old);
      if ('status' in incoming) obj.status = incoming.status;
      else delete obj.status;
      // a status write is pruned like any other: unknown status fields are dropped
      this.pruneCustom(r, obj, pruned);
    } else {
      // the incoming object is the request's own (parsed body or patch result): no copy needed,
      // and the old status may be shared because stored objects are immutable
      obj = incoming;
      if (r.subresources.includes('status')) {
        if ('status' in old) obj.status = r.custom ? clone(old.status) : old.status;
        else delete obj.status;
      }
      // (pruning edits in place: a custom resource's status was copied above)
      if (r.custom) this.pruneCustom(r, obj, pruned);
    }
    obj.apiVersion = old.apiVersion;
    obj.kind = r.kind;
    const m = obj.metadata;
    const om = old.metadata;
    for (const k of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'namespace',
      'name',
      'generation',
    ] as const) {
      if (om[k] === undefined) delete m[k];
      else (m as any)[k] = om[k];
    }
    if (subresource === '') applyWriteDefaults(r.kind, r.group, obj);
    if (om.generation !== undefined && subresource !== 'status' && !sameValue(specOf(obj), specOf(old)))
      m.generation = om.generation + 1;
    if (subresource === '') labelNamespace(r.kind, r.group, obj);
    return obj;
  }

  async update(
    r: ResourceInfo,
    ns: string | undefined,
    name: string,
    body: KubeObject,
    o: WriteOptions,
    subresource = '',
  ): Promise<WriteResult<KubeObject>> {
    this.checkKind(r, body);
    if (!isObject(body.metadata)) throw errors.badRequest('metadata is required');
    if (body.metadata.name && body.metadata.name !== name) {
      throw errors.badRequest(
        `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (r.namespaced && body.metadata.namespace && body.metadata.namespace !== ns) {
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const wantRv = body.metadata.resourceVersion;
    return this.writeLoop(r, ns, name, o, subresource, () => body, wantRv);
  }

  async patch(
    r: ResourceInfo,
    ns: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    o: WriteOptions,
    subresource = '',
  ): Promise<WriteResult<KubeObject>> {
    if (type === 'strategic' && (r.custom || !supportsStrategic({ group: r.group, kind: r.kind }))) {
      throw errors.unsupportedMediaType(
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    }
    const pinnedRv =
      isObject(patch) && isObject((patch as any).metadata)
        ? (patch as any).metadata.resourceVersion
        : undefined;
    return this.writeLoop(
      r,
      ns,
      name,
      o,
      subresource,
      (current) => {
        try {
          const out = applyPatch(current, patch, type, { group: r.group, kind: r.kind }) as KubeObject;
          if (!isObject(out) || !isObject(out.metadata))
            throw new PatchError('patch result is not an object');
          checkPatchedMicroTimes(r, out);
          // as kube-apiserver: whatever the patch type, a resourceVersion the patch leaves in the
          // object is a precondition of the update (a JSON patch can set one too)
          const rv = out.metadata.resourceVersion;
          if (rv && rv !== current.metadata?.resourceVersion) throw errors.staleConflict(r, name);
          return out;
        } catch (e) {
          if (e instanceof PatchError)
            throw e.code === 422 ? new StatusError(422, 'Invalid', e.message) : errors.badRequest(e.message);
          throw e;
        }
      },
      typeof pinnedRv === 'string' ? pinnedRv : undefined,
      // applyPatch builds a new object and leaves the stored one alone: no copy needed
      false,
    );
  }

  /**
   * Read-modify-write with compare-and-swap. Unconditional writes (no resourceVersion from
   * the client) are retried if another write lands while admission webhooks run; a
   * client-supplied resourceVersion that is stale gets 409 Conflict.
   */
  async writeLoop(
    r: ResourceInfo,
    ns: string | undefined,
    name: string,
    o: WriteOptions,
    subresource: string,
    produce: (current: KubeObject) => KubeObject,
    wantRv: string | undefined,
    /** false when produce never mutates its argument (patches build a new object) */
    mutates = true,
  ): Promise<WriteResult<KubeObject>> {
    for (let attempt = 0; ; attempt++) {
      const current = this.getStored(r, ns, name);
      if (wantRv && wantRv !== String(current.rv)) throw errors.staleConflict(r, name);
      // stored objects are never mutated in place; a producer that edits gets its own copy
      const incoming = produce(mutates ? clone(current.obj) : current.obj);
      const pruned: string[] = [];
      const obj = this.prepareUpdate(r, current.obj, incoming, subresource, pruned);
      // before the no-op check: rewriting `unavailableReplicas: 0` changes nothing stored
      dropEmptyStatus(obj);
      if (o.escalationCheck && r.group === 'rbac.authorization.k8s.io')
        this.rbacWriteCheck?.(r, obj, current.obj, o);
      this.validate(r, obj, current.obj);
      if (r.group === 'apiextensions.k8s.io')
        obj.status = { ...establishedStatus(obj), ...(obj.status as object) };
      const warnings = [
        ...pruned,
        ...(await this.admit(
          this.attrs(r, 'UPDATE', o, {
            subresource,
            namespace: obj.metadata.namespace,
            name,
            object: obj,
            oldObject: current.obj,
          }),
        )),
      ];
      const now = this.store.get(this.key(r), r.namespaced ? ns : undefined, name);
      if (!now) throw errors.notFound(r, name);
      if (now.rv !== current.rv) {
        if (wantRv || attempt >= MAX_RETRIES) throw errors.staleConflict(r, name);
        continue;
      }
      if (o.dryRun) return { obj, warnings, code: 200 };
      if (sameIgnoringRv(obj, current.obj)) {
        // a no-op write keeps the resourceVersion, as etcd3's GuaranteedUpdate does
        return { obj: current.obj, warnings, code: 200 };
      }
      if (shouldRemoveAfterUpdate(obj, current.obj)) {
        const removed = this.store.remove(this.key(r), obj.metadata.namespace, name)!;
        this.afterRemove(r, removed.obj);
        return { obj: removed.obj, warnings, code: 200 };
      }
      const stored = this.store.put(this.key(r), obj);
      this.afterWrite(r, stored.obj);
      return { obj: stored.obj, json: stored.json, warnings, code: 200 };
    }
  }

  // ---- CRD registration -------------------------------------------------------------

  afterWrite(r: ResourceInfo, obj: KubeObject) {
    if (r.group === 'apiextensions.k8s.io' && r.plural === 'customresourcedefinitions') this.registerCrd(obj);
  }

  afterRemove(r: ResourceInfo, obj: KubeObject) {
    if (r.group === 'apiextensions.k8s.io' && r.plural === 'customresourcedefinitions') {
      const spec = (obj as any).spec;
      for (const v of spec.versions ?? [])
        this.validators.delete(`${spec.group}/${v.name}/${spec.names.plural}`);
      this.registry.setCustom(obj.metadata.name!, []);
    }
  }

  registerCrd(crd: KubeObject) {
    const spec = (crd as any).spec;
    for (const v of spec.versions ?? []) {
      const schema = v.schema?.openAPIV3Schema;
      if (schema)
        this.validators.set(`${spec.group}/${v.name}/${spec.names.plural}`, {
          validate: compileSchema(schema),
          schema,
        });
    }
    this.registry.setCustom(crd.metadata.name!, crdResources(crd));
  }

  crdStorageVersion(crd: KubeObject): string {
    return storageVersion(crd);
  }
}

/**
 * The built-in status strategies keep the old spec but take the rest of the object as sent:
 * metadata changes (labels, annotations, finalizers) made through a status write stick. Pods
 * keep their old ownerReferences (old kubelets corrupted them), Deployments their old labels.
 */
function statusWriteOfBuiltin(r: ResourceInfo, old: KubeObject, incoming: KubeObject): KubeObject {
  const obj = clone(incoming);
  const o = old as KubeObject & { spec?: unknown };
  if ('spec' in o) (obj as typeof o).spec = clone(o.spec);
  else delete (obj as typeof o).spec;
  const keep = (k: 'ownerReferences' | 'labels') => {
    if (old.metadata[k] === undefined) delete obj.metadata[k];
    else (obj.metadata as any)[k] = clone(old.metadata[k]);
  };
  if (r.group === '' && r.kind === 'Pod') keep('ownerReferences');
  if (r.group === 'apps' && r.kind === 'Deployment') keep('labels');
  return obj;
}

function sameIgnoringRv(a: KubeObject, b: KubeObject): boolean {
  const strip = (x: KubeObject) => {
    const { resourceVersion: _rv, ...metadata } = x.metadata;
    return { ...x, metadata };
  };
  return sameValue(strip(a), strip(b));
}

/**
 * A collection as it was at rv, by undoing the events after it (the event log is the
 * embedded server's etcd history); older than the log is what etcd calls compacted.
 */
function stateAt(c: Collection, rv: number): Map<string, Stored> {
  const events = c.since(rv);
  if (!events) throw errors.expired('The resourceVersion for the provided list is too old.');
  const state = new Map(c.items);
  for (const e of events.reverse()) {
    const k = Collection.key(e.current.obj.metadata.namespace, e.current.obj.metadata.name!);
    if (e.type === 'ADDED') state.delete(k);
    else state.set(k, e.previous ?? e.current);
  }
  return state;
}

// ---- list paging helpers ------------------------------------------------------------

function lowerBound(keys: string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(keys: string[], k: string): number {
  const i = lowerBound(keys, k);
  return i < keys.length && keys[i] === k ? i + 1 : i;
}

function rangeWithPrefix(keys: string[], prefix: string): string[] {
  const start = lowerBound(keys, prefix);
  let end = start;
  while (end < keys.length && keys[end].startsWith(prefix)) end++;
  return keys.slice(start, end);
}

function encodeContinue(lastKey: string, rv: number): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: lastKey })).toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed.start !== 'string') throw new Error('no start');
    return parsed.start;
  } catch {
    throw errors.badRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
}
