// incident.*: the incident commander's view of one cluster — the situation with its 5/15-minute
// changes and freshness, the at-risk list with each item's safe next action, and remediation per
// failed node (server/incident, lib/incident). Read from the server's memory; the actions
// themselves go through the guarded seam (actions.*). It needs the cluster-wide view: the person
// must be allowed to list nodes and pods; protectors show as protection.list shows them (the
// namespaces whose PodProtectors the person may list).
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { protectorKey } from '../../lib/protection/types.js';
import {
  allow,
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  may,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const PROTECTORS = { group: 'podseidon.kubewharf.io', resource: 'podprotectors' };

/** Which protectors the person may see (as protection.list filters them). */
async function protectorFilter(ctx: SignedInContext): Promise<(key: string) => boolean> {
  const svc = ctx.protection;
  if (!svc) return () => true;
  const keys = svc.store.all().map((e) => protectorKey(e.protector));
  const ok = await listableNamespaces(
    ctx,
    svc.core.id,
    PROTECTORS,
    keys.map((k) => k.slice(0, k.indexOf('/'))),
  );
  return (key) => !ok || ok.has(key.slice(0, key.indexOf('/')));
}

export const incidentRouter = router({
  view: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', resource: 'nodes' });
    await allow(ctx, conn.id, { verb: 'list', resource: 'pods' });
    if (!ctx.incident)
      throw new TRPCError({
        code: 'PRECONDITION_FAILED',
        message: 'the incident view is not running on this console',
      });
    const view = await ctx.incident.view(conn, await protectorFilter(ctx));
    // the Incident record as the cluster's RBAC lets the person read Incidents (palisade-viewer does)
    const incidents = await may(ctx, conn.id, { verb: 'list', group: 'palisade.dev', resource: 'incidents' });
    if (!incidents.allowed) delete view.incident;
    return view;
  }),
});

/** The incident part of the API, for the page's types. */
const incidentOnly = router({ incident: incidentRouter });
export type IncidentApi = typeof incidentOnly;
