// tRPC setup: the request context (the connected clusters, who is asking and what they may
// do), the procedures (every one needs a signed-in person; mutations are rate-limited per
// person) and an error shape in which an invalid input names the field, e.g. "name: Too small:
// expected string to have >=1 characters".
import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { AccessAttributes, AccessDecision } from '../../lib/auth/forbidden.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { AccessReviews } from '../auth/access.js';
import { type Identity, nameOn } from '../auth/identity.js';
import type { RateLimits } from '../auth/limits.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';
import type { FencingService } from '../fencing/service.js';
import type { IncidentService } from '../incident/service.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import type { HistoryService } from '../history/service.js';
import { namespaceScope } from '../realtime/scope.js';

export interface Context {
  clusters: Map<ClusterId, ClusterConnection>;
  /** deletion protection, when this console runs it */
  protection?: ProtectionService;
  /** the fencing controllers, one per cluster where fencing is on */
  fencing?: FencingService;
  /** the incident view's sampler and computation */
  incident?: IncidentService;
  /** the controller runtime: per cluster its controller Lease and the loops it runs */
  runtime?: ControllerRuntime;
  /** the incident history store (timeline, audit, replay), when configured */
  history?: HistoryService;
  /** who is asking: set by the request gate from the session or the bearer token */
  identity?: Identity;
  /** asks the cluster what the person may do (SelfSubjectAccessReview, cached) */
  access: AccessReviews;
  limits?: RateLimits;
  /** the install's audit key: seals Palisade's records and tells them from anyone's Events */
  auditKey?: Buffer;
}

export type SignedInContext = Context & { identity: Identity };

interface Issue {
  path?: readonly (PropertyKey | { key: PropertyKey })[];
  message: string;
}

function issuesOf(cause: unknown): { field: string; message: string }[] | undefined {
  const issues = (cause as { issues?: Issue[] } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((i) => ({
    field: (i.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.') || '(input)',
    message: i.message,
  }));
}

const t = initTRPC.context<Context>().create({
  // no stack traces to browsers: messages are written to be read by people
  isDev: false,
  errorFormatter({ shape, error }) {
    const issues = error.code === 'BAD_REQUEST' ? issuesOf(error.cause) : undefined;
    if (!issues) return shape;
    return {
      ...shape,
      message: issues.map((i) => `${i.field}: ${i.message}`).join('; '),
      data: { ...shape.data, issues },
    };
  },
});

/** Input fields every router shares, so their error texts read the same everywhere. */
export const clusterInput = z.string().min(1, 'cluster id is required');
export const objectName = z
  .string()
  .min(1, 'name is required')
  .max(253, 'name is longer than 253 characters')
  // Kubernetes' rule for a name in a URL path: the client normalises "pods/.." to the namespace
  // itself and "pods/." to the list, so a read or a delete would reach another resource
  .refine((n) => n !== '.' && n !== '..', 'name may not be "." or ".."')
  .refine((n) => !n.includes('/') && !n.includes('%'), 'name may not contain "/" or "%"')
  // half a UTF-16 surrogate pair is no text: it cannot be put in a URL (encodeURIComponent throws)
  .refine((n) => !/[\uD800-\uDFFF]/u.test(n), 'name is not valid Unicode text');

export const router = t.router;

const signedIn = t.middleware(({ ctx, next }) => {
  // the gate answers 401 before tRPC runs; this is the second lock on the same door
  if (!ctx.identity) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first' });
  return next({ ctx: { ...ctx, identity: ctx.identity } });
});

const rateLimited = t.middleware(async ({ ctx, type, next }) => {
  if (type === 'mutation' && ctx.limits && ctx.identity) {
    const admit = await ctx.limits.mutationBy(nameOn(ctx.identity));
    if (!admit.ok)
      throw new TRPCError({
        code: 'TOO_MANY_REQUESTS',
        message: `too many changes in a short time: try again in ${admit.retryAfterSeconds} s`,
      });
  }
  return next();
});

/** Every procedure: a signed-in person, and mutations within their rate limit. */
export const procedure = t.procedure.use(signedIn).use(rateLimited);

/** Ask the cluster whether the person may do this; FORBIDDEN with the cluster's own words if not. */
export async function allow(ctx: SignedInContext, cluster: ClusterId, a: AccessAttributes): Promise<void> {
  const d = await ctx.access.can(ctx.identity, cluster, a);
  if (!d.allowed) throw new TRPCError({ code: 'FORBIDDEN', message: d.message ?? 'forbidden' });
}

/** The same question, answered as data (for lists filtered to what the person may see). */
export function may(ctx: SignedInContext, cluster: ClusterId, a: AccessAttributes): Promise<AccessDecision> {
  return ctx.access.can(ctx.identity, cluster, a);
}

export function clusterOf(ctx: Context, id: ClusterId): ClusterConnection {
  const conn = ctx.clusters.get(id);
  if (!conn)
    throw new TRPCError({
      code: 'NOT_FOUND',
      message: `cluster: unknown cluster "${id}" (clusters: ${[...ctx.clusters.keys()].join(', ')})`,
    });
  return conn;
}

/** Of these namespaces, those where the person may list the resource; undefined: every namespace. */
export async function listableNamespaces(
  ctx: SignedInContext,
  cluster: ClusterId,
  what: { group?: string; resource: string },
  namespaces: Iterable<string>,
): Promise<Set<string> | undefined> {
  const scope = await namespaceScope(
    ctx.access,
    ctx.identity,
    cluster,
    { ...what, namespaced: true },
    () => namespaces,
  );
  return scope.kind === 'all' ? undefined : scope.kind === 'namespaces' ? scope.namespaces : new Set();
}
