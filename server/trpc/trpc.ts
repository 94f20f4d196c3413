// tRPC setup: the request context (the connected clusters) and an error shape in which
// an invalid input names the field, e.g. "name: Too small: expected string to have >=1 characters".
import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';
import type { FencingService } from '../fencing/service.js';
import type { Actor } from '../actions/actor.js';

export interface Context {
  clusters: Map<ClusterId, ClusterConnection>;
  /** deletion protection, when this console runs it */
  protection?: ProtectionService;
  /** the fencing controllers, one per cluster where fencing is on */
  fencing?: FencingService;
  /** who acts (today: the console's own credentials; sign-in and impersonation plug in here) */
  actor?: Actor;
  /** set when the console listens beyond loopback without authentication: the UI shows it */
  security?: { banner?: string };
}

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
  .max(253, 'name is longer than 253 characters');

export const router = t.router;
export const publicProcedure = t.procedure;

export function clusterOf(ctx: Context, id: ClusterId): ClusterConnection {
  const conn = ctx.clusters.get(id);
  if (!conn)
    throw new TRPCError({
      code: 'NOT_FOUND',
      message: `cluster: unknown cluster "${id}" (clusters: ${[...ctx.clusters.keys()].join(', ')})`,
    });
  return conn;
}
