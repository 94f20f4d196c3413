// leadership.state: who runs the controller loops on each cluster, as this console sees it —
// the controller Lease, its holder, the epoch (leaseTransitions when this console acquired it),
// renew times, the changes of holder this process saw, and the loops with their queues. Every
// replica answers for itself (it names its own identity). Needs `get` on the Lease.
import { z } from 'zod';
import { allow, clusterInput as cluster, clusterOf, procedure, router } from './trpc.js';

export const leadershipRouter = router({
  state: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    const manager = ctx.runtime?.get(conn.id);
    const lease = ctx.runtime?.election;
    if (lease)
      await allow(ctx, conn.id, {
        verb: 'get',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: lease.namespace,
        name: lease.name,
      });
    if (!manager)
      return {
        elected: false as const,
        reason:
          conn.spec.mode === 'read-only'
            ? 'this cluster is read-only: Palisade runs no loops on it'
            : 'no controller loop runs on this cluster (no protection core, no FencePolicy CRD)',
      };
    const s = manager.elector.state();
    return {
      elected: true as const,
      ...s,
      loops: manager.loops.map((l) => ({
        name: l.name,
        running: l.running,
        depth: l.depth,
        delayed: l.waiting,
      })),
    };
  }),
});
