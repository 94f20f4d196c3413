// incident.*: the incident commander's view of one cluster — the situation with its 5/15-minute
// changes and freshness, the at-risk list with each item's safe next action, and remediation per
// failed node (server/incident, lib/incident). Read from the server's memory; the actions
// themselves go through the guarded seam (actions.*). It needs the cluster-wide view: the person
// must be allowed to list nodes and pods; protectors show as protection.list shows them (the
// namespaces whose PodProtectors the person may list).
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { exportMarkdown, exportWindow, incidentExport } from '../../lib/incident/export.js';
import { MAX_TIMELINE_LIMIT } from '../../lib/history/filter.js';
import { protectorKey } from '../../lib/protection/types.js';
import { storeOf, visibleEntries } from './history.js';
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
  /**
   * The cluster's incidents, newest first (the open one and the resolved ones kept as objects):
   * the timeline groups its window by one of them, and shows its notes in the people's lanes.
   */
  list: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', resource: 'nodes' });
    await allow(ctx, conn.id, { verb: 'list', group: 'palisade.dev', resource: 'incidents' });
    const now = Date.now();
    return (ctx.incident?.incidents(conn.id) ?? [])
      .map((i) => ({
        name: i.metadata.name,
        title: i.spec.title,
        severity: i.spec.severity,
        startedAt: i.spec.startedAt,
        ...(i.spec.resolvedAt ? { resolvedAt: i.spec.resolvedAt } : {}),
        window: exportWindow(i, now),
        updates: i.spec.updates ?? [],
      }))
      .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
  }),
  /**
   * One incident for the postmortem: the record and every history entry from a minute before it
   * began to its resolution, oldest first, as JSON or Markdown (the page downloads it).
   */
  export: procedure
    .input(
      z.object({
        cluster,
        name: z.string().regex(/^inc-\d{8}-\d{6}$/, 'must be an incident name like inc-20261130-045408'),
        format: z.enum(['json', 'markdown'], { error: 'format must be json or markdown' }),
      }),
    )
    .query(async ({ ctx, input }) => {
      const conn = clusterOf(ctx, input.cluster);
      await allow(ctx, conn.id, { verb: 'list', resource: 'nodes' });
      await allow(ctx, conn.id, { verb: 'list', group: 'palisade.dev', resource: 'incidents' });
      const incident = ctx.incident?.incidents(conn.id).find((i) => i.metadata.name === input.name);
      if (!incident) throw new TRPCError({ code: 'NOT_FOUND', message: `incident ${input.name} not found` });
      const store = await storeOf(ctx);
      const now = Date.now();
      const window = exportWindow(incident, now);
      const entries = await store.query({ cluster: conn.id, ...window, limit: MAX_TIMELINE_LIMIT });
      const x = incidentExport(
        conn.id,
        incident,
        await visibleEntries(ctx, conn.id, entries),
        now,
        entries.length >= MAX_TIMELINE_LIMIT,
      );
      return input.format === 'json'
        ? {
            filename: `${input.name}.json`,
            contentType: 'application/json',
            body: JSON.stringify(x, null, 2),
          }
        : { filename: `${input.name}.md`, contentType: 'text/markdown', body: exportMarkdown(x) };
    }),
});

/** The incident part of the API, for the page's types. */
const incidentOnly = router({ incident: incidentRouter });
export type IncidentApi = typeof incidentOnly;
