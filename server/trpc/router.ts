// The console's tRPC API. Queries read the in-memory cache (pods.get also reads the pod
// live for its details); infra.act is the one mutation, and only the embedded cluster
// has an infrastructure to act on. The UI imports the AppRouter type from here.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { consoleVerbs, InfraError, nodeFault } from '../kube/infra.js';
import { podDetails } from './pods.js';
import { clusterOf, publicProcedure, router } from './trpc.js';

const cluster = z.string().min(1, 'cluster id is required');
const objectName = z.string().min(1, 'name is required').max(253, 'name is longer than 253 characters');

const clusters = router({
  list: publicProcedure.query(({ ctx }) =>
    [...ctx.clusters.values()].map((c) => {
      const health = c.health();
      return { id: c.id, context: c.spec.context, embedded: health.embedded, mode: health.mode, health };
    }),
  ),
});

const nodes = router({
  get: publicProcedure.input(z.object({ cluster, name: objectName })).query(({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    const node = conn.cache.node(input.name);
    if (!node) throw new TRPCError({ code: 'NOT_FOUND', message: `node "${input.name}" not found` });
    return { node, pods: conn.cache.podsOnNode(input.name) };
  }),
});

const pods = router({
  get: publicProcedure
    .input(z.object({ cluster, namespace: objectName, name: objectName }))
    .query(({ ctx, input }) => podDetails(clusterOf(ctx, input.cluster), input.namespace, input.name)),
});

const infra = router({
  act: publicProcedure
    .input(z.object({ cluster, node: objectName, verb: z.enum(consoleVerbs) }))
    .mutation(async ({ ctx, input }) => {
      const conn = clusterOf(ctx, input.cluster);
      const ep = conn.spec.infra;
      if (!ep)
        throw new TRPCError({
          code: 'PRECONDITION_FAILED',
          message: `cluster "${conn.id}" is not Palisade's embedded cluster: it has no infrastructure API to act on`,
        });
      if (conn.spec.readOnly)
        throw new TRPCError({ code: 'FORBIDDEN', message: `cluster "${conn.id}" is read-only` });
      try {
        return { node: input.node, verb: input.verb, state: await nodeFault(ep, input.node, input.verb) };
      } catch (e) {
        if (!(e instanceof InfraError)) throw e;
        const code =
          e.status === 404 ? 'NOT_FOUND' : e.status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
        throw new TRPCError({ code, message: `infrastructure: ${e.message}`, cause: e });
      }
    }),
});

export const appRouter = router({ clusters, nodes, pods, infra });
export type AppRouter = typeof appRouter;
