// Verb dispatch for resource paths: get/list/watch, create, update, patch, delete and
// deletecollection, plus the status, binding, eviction and scale subresources.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { watchRequested } from '../auth/attributes.js';
import type { AuthServices } from '../auth/index.js';
import {
  REVIEW_GROUPS,
  accessReview,
  rulesReview,
  selfSubjectReview,
  tokenRequest,
  tokenReview,
} from '../auth/reviews.js';
import type { ApiCore } from '../core/api.js';
import type { UserInfo, WriteOptions } from '../core/context.js';
import { type OptionsKind, dryRunRequested } from '../core/dryRun.js';
import { isObject } from '../core/objects.js';
import { deleteCollection, deleteOne } from '../core/remove.js';
import { bindPod, evictPod, toScale, updateScale } from '../core/subresources.js';
import { applyPatch, patchTypeFromContentType, supportsStrategic } from '../patch/index.js';
import type { KubeObject } from '../resources/types.js';
import { apiVersionOf } from '../resources/types.js';
import { parseIncludeObject, toTable, wantsTable } from '../table/index.js';
import { StatusError, errors } from './errors.js';
import { deleteOptions, parseBody, parseDryRun, queryInt, readBody, sendJson } from './request.js';
import type { ResourceRoute } from './routes.js';
import { validateListOptions, waitForResourceVersion } from './listOptions.js';
import { type WatchTiming, serveWatch } from './watch.js';

export interface HandlerContext {
  core: ApiCore;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  user: UserInfo;
  route: ResourceRoute;
  timing: WatchTiming;
  auth: AuthServices;
}

function tableOpts(ctx: HandlerContext) {
  return wantsTable(ctx.req.headers.accept)
    ? { includeObject: parseIncludeObject(ctx.query.get('includeObject') ?? undefined) }
    : undefined;
}

function sendObject(
  ctx: HandlerContext,
  code: number,
  obj: KubeObject | object,
  warnings: string[] = [],
  json?: string,
) {
  const table = tableOpts(ctx);
  const o = obj as KubeObject;
  if (table && o.kind === ctx.route.resource.kind && o.metadata) {
    return sendJson(
      ctx.res,
      code,
      toTable(ctx.route.resource, [o], {
        includeObject: table.includeObject,
        resourceVersion: o.metadata.resourceVersion ?? '',
      }),
      warnings,
    );
  }
  const sameVersion = o.apiVersion === apiVersionOf(ctx.route.resource);
  sendJson(ctx.res, code, json && sameVersion ? json : obj, warnings);
}

function listQuery(q: URLSearchParams) {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: queryInt(q, 'limit'),
    continueToken: q.get('continue') ?? undefined,
  };
}

/** as authorization read the request: watch=<anything but 0 or false> is a watch */
function isWatch(ctx: HandlerContext) {
  return ctx.route.watchPrefix || watchRequested(ctx.query);
}

function checkListOptions(ctx: HandlerContext) {
  const q = ctx.query;
  validateListOptions({
    watch: !!isWatch(ctx),
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    sendInitialEvents: q.get('sendInitialEvents') ?? undefined,
    continueToken: q.get('continue') ?? undefined,
  });
}

async function handleGet(ctx: HandlerContext) {
  const { core, route } = ctx;
  const r = route.resource;
  if (route.name === undefined) checkListOptions(ctx);
  if (route.name !== undefined) {
    const s = core.getStored(r, route.namespace, route.name);
    if (route.subresource === 'scale') return sendJson(ctx.res, 200, toScale(r, s.obj));
    const p = core.present(r, s);
    return tableOpts(ctx) ? sendObject(ctx, 200, p.obj) : sendJson(ctx.res, 200, p.json);
  }
  if (isWatch(ctx)) {
    const sel = core.parseSelection(r, listQuery(ctx.query));
    serveWatch(
      core,
      r,
      route.namespace,
      sel,
      {
        resourceVersion: ctx.query.get('resourceVersion') ?? undefined,
        allowWatchBookmarks: ctx.query.get('allowWatchBookmarks') === 'true',
        sendInitialEvents: ctx.query.get('sendInitialEvents') === 'true',
        timeoutSeconds: queryInt(ctx.query, 'timeoutSeconds'),
        table: tableOpts(ctx),
      },
      ctx.timing,
      ctx.res,
    );
    return;
  }
  return sendList(ctx);
}

async function sendList(ctx: HandlerContext) {
  const { core, route } = ctx;
  const r = route.resource;
  const rv = ctx.query.get('resourceVersion');
  const exact = ctx.query.get('resourceVersionMatch') === 'Exact';
  const wanted = rv && rv !== '0' && /^\d+$/.test(rv) ? Number(rv) : undefined;
  if (wanted !== undefined && !ctx.query.get('continue'))
    await waitForResourceVersion(() => core.store.currentRv(), wanted);
  const out = core.list(r, route.namespace, { ...listQuery(ctx.query), exactRv: exact ? wanted : undefined });
  const table = tableOpts(ctx);
  if (table) {
    const objs = out.items.map((s) => core.present(r, s).obj);
    return sendJson(
      ctx.res,
      200,
      toTable(r, objs, {
        includeObject: table.includeObject,
        resourceVersion: String(out.rv),
        continueToken: out.continueToken,
      }),
    );
  }
  const meta: Record<string, unknown> = { resourceVersion: String(out.rv) };
  if (out.continueToken) meta.continue = out.continueToken;
  if (out.remaining !== undefined) meta.remainingItemCount = out.remaining;
  // stream the stored JSON in batches, waiting for the socket to drain: a 150 000-pod
  // list is never built as one string, never buffered whole, and never blocks the loop
  const res = ctx.res;
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.write(
    `{"kind":"${r.listKind}","apiVersion":"${apiVersionOf(r)}","metadata":${JSON.stringify(meta)},"items":[`,
  );
  void streamItems(
    res,
    out.items.map((s) => () => core.present(r, s).json),
  );
}

async function streamItems(res: ServerResponse, items: (() => string)[]) {
  const batchSize = 1000;
  for (let i = 0; i < items.length; i += batchSize) {
    if (res.destroyed) return;
    const chunk = items
      .slice(i, i + batchSize)
      .map((f) => f())
      .join(',');
    const ok = res.write(i === 0 ? chunk : `,${chunk}`);
    if (!ok)
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
  }
  res.end(']}');
}

async function bodyOf(ctx: HandlerContext): Promise<unknown> {
  const buf = await readBody(ctx.req);
  if (buf.length === 0) return undefined;
  return parseBody(buf, ctx.req.headers['content-type']);
}

const optionsKinds: Record<string, OptionsKind> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

function writeOpts(ctx: HandlerContext): WriteOptions {
  return {
    user: ctx.user,
    dryRun: parseDryRun(ctx.query, optionsKinds[ctx.req.method ?? ''] ?? 'CreateOptions'),
    fieldManager: ctx.query.get('fieldManager') ?? undefined,
    escalationCheck: true,
  };
}

async function handlePost(ctx: HandlerContext) {
  const { core, route } = ctx;
  if (route.name !== undefined && !['binding', 'eviction', 'token'].includes(route.subresource))
    throw errors.methodNotAllowed();
  const o = writeOpts(ctx);
  const body = (await bodyOf(ctx)) as any;
  if (!isObject(body)) throw errors.badRequest('the body of the request must be a JSON object');
  if (route.name === undefined) {
    const res = await core.create(route.resource, route.namespace, body as KubeObject, o);
    return sendObject(ctx, res.code, res.obj, res.warnings, res.json);
  }
  if (route.subresource === 'binding') {
    const res = await bindPod(core, route.resource, route.namespace!, route.name, body, o);
    return sendJson(ctx.res, res.code, res.obj, res.warnings);
  }
  if (route.subresource === 'token') {
    const sa = core.getStored(route.resource, route.namespace, route.name).obj;
    const pods = core.registry.lookup('', 'v1', 'pods')!;
    const nodes = core.registry.lookup('', 'v1', 'nodes')!;
    return sendJson(
      ctx.res,
      201,
      tokenRequest(body, sa, ctx.auth, {
        pod: (ns, name) => core.getStored(pods, ns, name).obj,
        node: (name) => core.getStored(nodes, undefined, name).obj,
      }),
    );
  }
  if (route.subresource === 'eviction') {
    const res = await evictPod(core, route.resource, route.namespace!, route.name, body, o);
    return sendJson(ctx.res, res.code, res.obj, res.warnings);
  }
  throw errors.methodNotAllowed();
}

async function handlePut(ctx: HandlerContext) {
  const { core, route } = ctx;
  if (route.name === undefined) throw errors.methodNotAllowed();
  const body = (await bodyOf(ctx)) as any;
  if (!isObject(body)) throw errors.badRequest('the body of the request must be a JSON object');
  const o = writeOpts(ctx);
  if (route.subresource === 'scale') {
    const res = await updateScale(core, route.resource, route.namespace!, route.name, () => body, o);
    return sendJson(ctx.res, 200, res.obj, res.warnings);
  }
  const sub = route.subresource === 'finalize' ? '' : route.subresource;
  const res = await core.update(route.resource, route.namespace, route.name, body as KubeObject, o, sub);
  return sendObject(ctx, res.code, res.obj, res.warnings, res.json);
}

async function handlePatch(ctx: HandlerContext) {
  const { core, route } = ctx;
  if (route.name === undefined) throw errors.methodNotAllowed();
  const type = patchTypeFromContentType(ctx.req.headers['content-type']);
  if (type === 'apply') return handleApply(ctx);
  if (type === undefined) {
    throw errors.unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
    );
  }
  const patch = parseBody(await readBody(ctx.req), 'application/json');
  const o = writeOpts(ctx);
  if (route.subresource === 'scale') {
    const r = route.resource;
    const res = await updateScale(
      core,
      r,
      route.namespace!,
      route.name,
      (scale) =>
        applyPatch(scale, patch, type === 'strategic' ? 'merge' : type, {
          group: 'autoscaling',
          kind: 'Scale',
        }) as any,
      o,
    );
    return sendJson(ctx.res, 200, res.obj, res.warnings);
  }
  const res = await core.patch(
    route.resource,
    route.namespace,
    route.name,
    type,
    patch,
    o,
    route.subresource,
  );
  return sendObject(ctx, res.code, res.obj, res.warnings, res.json);
}

/**
 * Server-side apply (`kubectl apply --server-side`), minimally: the applied object is created
 * when it does not exist, else merged into the stored one (a strategic merge patch where the
 * kind has one, else a JSON merge patch). Not modelled: managedFields, conflicts between field
 * managers, and removing fields a manager applied before and no longer applies.
 */
async function handleApply(ctx: HandlerContext) {
  const { core, route } = ctx;
  const o = writeOpts(ctx);
  if (!o.fieldManager)
    throw new StatusError(
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  const name = route.name;
  if (name === undefined || route.subresource) throw errors.methodNotAllowed();
  const body = parseBody(await readBody(ctx.req), 'application/apply-patch+yaml');
  if (!isObject(body) || !isObject((body as KubeObject).metadata))
    throw errors.badRequest('the body of the request must be an object with metadata');
  const obj = body as KubeObject;
  if (obj.metadata.name !== name)
    throw errors.badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
    );
  const r = route.resource;
  let exists = true;
  try {
    core.getStored(r, route.namespace, name);
  } catch (e) {
    if (!(e instanceof StatusError) || e.code !== 404) throw e;
    exists = false;
  }
  if (!exists) {
    const res = await core.create(r, route.namespace, obj, o);
    return sendObject(ctx, res.code, res.obj, res.warnings, res.json);
  }
  const type = !r.custom && supportsStrategic({ group: r.group, kind: r.kind }) ? 'strategic' : 'merge';
  const res = await core.patch(r, route.namespace, name, type, obj, o);
  return sendObject(ctx, res.code, res.obj, res.warnings, res.json);
}

async function handleDelete(ctx: HandlerContext) {
  const { core, route } = ctx;
  const o = writeOpts(ctx);
  const body = await bodyOf(ctx);
  const opts = deleteOptions(body, ctx.query, o.dryRun);
  // kubectl sends dryRun inside DeleteOptions rather than as a query parameter
  if (dryRunRequested(opts.dryRun)) o.dryRun = true;
  if (route.subresource) throw errors.methodNotAllowed();
  if (route.name !== undefined) {
    const res = await deleteOne(core, route.resource, route.namespace, route.name, opts, o);
    return sendJson(ctx.res, res.code, res.obj, res.warnings);
  }
  const res = await deleteCollection(core, route.resource, route.namespace, listQuery(ctx.query), opts, o);
  return sendJson(
    ctx.res,
    200,
    {
      kind: route.resource.listKind,
      apiVersion: apiVersionOf(route.resource),
      metadata: {},
      items: res.items,
    },
    res.warnings,
  );
}

/** POST bindings: the older form of pods/<name>/binding, which client libraries still use. */
async function handleBindings(ctx: HandlerContext) {
  if (ctx.req.method !== 'POST' || ctx.route.name !== undefined) throw errors.methodNotAllowed();
  const body = (await bodyOf(ctx)) as any;
  const name = body?.metadata?.name;
  if (typeof name !== 'string' || !name)
    throw errors.invalid('Binding', '', '', [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' },
    ]);
  const pods = ctx.core.registry.lookup('', 'v1', 'pods')!;
  const res = await bindPod(ctx.core, pods, ctx.route.namespace!, name, body, writeOpts(ctx));
  return sendJson(ctx.res, res.code, res.obj, res.warnings);
}

/** POST of a review: answered from the request, nothing stored */
async function handleReview(ctx: HandlerContext) {
  const { route } = ctx;
  if (ctx.req.method !== 'POST' || route.name !== undefined) throw errors.methodNotAllowed();
  const body = (await bodyOf(ctx)) as any;
  if (!isObject(body)) throw errors.badRequest('the body of the request must be a JSON object');
  switch (route.resource.kind) {
    case 'SelfSubjectReview':
      return sendJson(ctx.res, 201, selfSubjectReview(ctx.user));
    case 'TokenReview':
      return sendJson(ctx.res, 201, tokenReview(body, ctx.auth));
    case 'SelfSubjectRulesReview':
      return sendJson(ctx.res, 201, rulesReview(body, ctx.user, ctx.auth));
    case 'SelfSubjectAccessReview':
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview':
      return sendJson(
        ctx.res,
        201,
        accessReview(route.resource.kind, body, ctx.user, route.namespace, ctx.auth),
      );
  }
  throw errors.methodNotAllowed();
}

export async function handleResource(ctx: HandlerContext) {
  if (ctx.route.resource.verbs && ctx.route.resource.plural === 'bindings') return handleBindings(ctx);
  if (REVIEW_GROUPS.has(ctx.route.resource.group)) return handleReview(ctx);
  switch (ctx.req.method) {
    case 'GET':
      return handleGet(ctx);
    case 'POST':
      return handlePost(ctx);
    case 'PUT':
      return handlePut(ctx);
    case 'PATCH':
      return handlePatch(ctx);
    case 'DELETE':
      return handleDelete(ctx);
    default:
      throw errors.methodNotAllowed();
  }
}
