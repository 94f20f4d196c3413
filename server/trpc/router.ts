// The console's tRPC API. Queries read the in-memory cache (pods.get also reads the pod
// live for its details), each after the cluster has said the signed-in person may read what
// it returns; mutations go through the guarded seam (actions.*) or infra.act, the embedded
// cluster's simulated faults. The UI imports the AppRouter type from here.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { accessRouter } from './access.js';
import { actionsRouter } from './actions.js';
import { fencingRouter } from './fencing.js';
import { incidentRouter } from './incident.js';
import { volumesRouter } from './volumes.js';
import { infraRouter } from './infra.js';
import { instanceIdsRouter } from './instanceIds.js';
import { leadershipRouter } from './leadership.js';
import { historyRouter } from './history.js';
import { podDetails } from './pods.js';
import { protectionRouter } from './protection.js';
import {
  allow,
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  may,
  objectName,
  procedure,
  router,
} from './trpc.js';

const clusters = router({
  /** every cluster the console shows, and who the person is on each (null: not signed in there) */
  list: procedure.query(({ ctx }) =>
    [...ctx.clusters.values()].map((c) => {
      const health = c.health();
      const me = ctx.identity.principals.get(c.id);
      return {
        id: c.id,
        context: c.spec.context,
        embedded: health.embedded,
        mode: health.mode,
        health,
        user: me ? { name: me.username, groups: me.groups } : null,
      };
    }),
  ),
});

const nodes = router({
  /** the node, and its pods in the namespaces where the person may list pods */
  get: procedure.input(z.object({ cluster, name: objectName })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'get', resource: 'nodes', name: input.name });
    const node = conn.cache.node(input.name);
    if (!node) throw new TRPCError({ code: 'NOT_FOUND', message: `node "${input.name}" not found` });
    const pods = conn.cache.podsOnNode(input.name);
    const visible = await listableNamespaces(
      ctx,
      conn.id,
      { resource: 'pods' },
      pods.map((p) => p.namespace),
    );
    const shown = visible ? pods.filter((p) => visible.has(p.namespace)) : pods;
    return {
      node,
      pods: shown,
      ...(shown.length < pods.length ? { hiddenPods: pods.length - shown.length } : {}),
    };
  }),
  /** the node's Kubernetes Events (kubelet, node lifecycle, Palisade's own records) where the person may list Events */
  events: procedure.input(z.object({ cluster, name: objectName })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'get', resource: 'nodes', name: input.name });
    const events = conn.cache.eventsFor('Node', '', input.name);
    const visible = await listableNamespaces(
      ctx,
      conn.id,
      { resource: 'events' },
      events.map((e) => e.namespace),
    );
    return visible ? events.filter((e) => visible.has(e.namespace)) : events;
  }),
});

const pods = router({
  get: procedure
    .input(z.object({ cluster, namespace: objectName, name: objectName }))
    .query(async ({ ctx, input }) => {
      const conn = clusterOf(ctx, input.cluster);
      await allow(ctx, conn.id, {
        verb: 'get',
        resource: 'pods',
        namespace: input.namespace,
        name: input.name,
      });
      const details = await podDetails(conn, input.namespace, input.name);
      // its Events are objects of their own: shown where the person may list Events
      const events = await may(ctx, conn.id, {
        verb: 'list',
        resource: 'events',
        namespace: input.namespace,
      });
      if (events.allowed) return details;
      return {
        ...details,
        events: [],
        ...(details.replaced ? { replaced: { ...details.replaced, events: [] } } : {}),
      };
    }),
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
  access: accessRouter,
  instanceIds: instanceIdsRouter,
  leadership: leadershipRouter,
  history: historyRouter,
  incident: incidentRouter,
});
export type AppRouter = typeof appRouter;
