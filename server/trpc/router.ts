// The console's tRPC API. Queries read the in-memory cache (pods.get also reads the pod
// live for its details); infra.act (infra.ts) is the one mutation, and only the embedded
// cluster has an infrastructure to act on. The UI imports the AppRouter type from here.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { actionsRouter } from './actions.js';
import { fencingRouter } from './fencing.js';
import { volumesRouter } from './volumes.js';
import { infraRouter } from './infra.js';
import { podDetails } from './pods.js';
import { protectionRouter } from './protection.js';
import { clusterInput as cluster, clusterOf, objectName, publicProcedure, router } from './trpc.js';

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
  /** the node's Kubernetes Events (kubelet, node lifecycle, Palisade's own records) */
  events: publicProcedure
    .input(z.object({ cluster, name: objectName }))
    .query(({ ctx, input }) => clusterOf(ctx, input.cluster).cache.eventsFor('Node', '', input.name)),
});

const pods = router({
  get: publicProcedure
    .input(z.object({ cluster, namespace: objectName, name: objectName }))
    .query(({ ctx, input }) => podDetails(clusterOf(ctx, input.cluster), input.namespace, input.name)),
});

export const appRouter = router({
  clusters,
  nodes,
  pods,
  infra: infraRouter,
  protection: protectionRouter,
  fencing: fencingRouter,
  volumes: volumesRouter,
  actions: actionsRouter,
});
export type AppRouter = typeof appRouter;
