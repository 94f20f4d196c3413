// volumes.*: the RWO attach view. `list` gives one row per PersistentVolume (attached node,
// users, waiters with their Multi-Attach age, stuck detaches, force-detach countdown, risk);
// `get` one volume with the events of its claim, pods and nodes. The rows come from
// server/volumes/rows.ts; this file only gates them by what the person may read.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { EventView } from '../../lib/console/views.js';
import type { RwoRow } from '../../lib/volumes/rwoTypes.js';
import type { ClusterConnection } from '../kube/connection.js';
import { rowsOf } from '../volumes/rows.js';
import {
  allow,
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

/** The events that tell a volume's story: its objects', its pods' and its nodes' about it. */
function eventsOf(conn: ClusterConnection, row: RwoRow): EventView[] {
  const c = conn.cache;
  const pods = [...row.users, ...row.waiters];
  const nodes = new Set([...row.attachments.map((a) => a.node), ...pods.map((p) => p.node ?? '')]);
  const about = (e: EventView) => e.message?.includes(`"${row.pv}"`) ?? false;
  const all = [
    ...c.eventsFor('PersistentVolume', '', row.pv),
    ...(row.claim ? c.eventsFor('PersistentVolumeClaim', row.claim.namespace, row.claim.name) : []),
    ...pods.flatMap((p) => c.eventsFor('Pod', p.namespace, p.name, p.uid)),
    ...[...nodes].filter(Boolean).flatMap((n) => c.eventsFor('Node', '', n).filter(about)),
  ];
  return [...new Map(all.map((e) => [e.uid, e])).values()]
    .sort((a, b) => (b.lastSeen ?? 0) - (a.lastSeen ?? 0))
    .slice(0, 200);
}

/**
 * Which rows the person may see: a PersistentVolume is cluster-scoped, but its row tells of its
 * claim and of the pods using or waiting for it, all in the claim's namespace (a pod can only
 * mount a claim of its own namespace). A bound volume's row is shown only where the person may
 * list both claims and pods; an unbound one has nothing namespaced to tell.
 */
async function claimScope(ctx: SignedInContext, conn: ClusterConnection, rows: readonly RwoRow[]) {
  const namespaces = rows.flatMap((r) => (r.claim ? [r.claim.namespace] : []));
  const [claims, pods] = await Promise.all([
    listableNamespaces(ctx, conn.id, { resource: 'persistentvolumeclaims' }, namespaces),
    listableNamespaces(ctx, conn.id, { resource: 'pods' }, namespaces),
  ]);
  return (ns: string | undefined) =>
    ns === undefined || ((!claims || claims.has(ns)) && (!pods || pods.has(ns)));
}

export const volumesRouter = router({
  list: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', resource: 'persistentvolumes' });
    const { departed: _, rows, ...list } = await rowsOf(ctx, conn);
    const mayRead = await claimScope(ctx, conn, rows);
    const shown = rows.filter((r) => mayRead(r.claim?.namespace));
    return {
      ...list,
      rows: shown,
      /** volumes bound to claims in namespaces the person may not list (left out) */
      ...(shown.length < rows.length ? { hidden: rows.length - shown.length } : {}),
    };
  }),
  get: procedure.input(z.object({ cluster, name: objectName })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'get', resource: 'persistentvolumes', name: input.name });
    const { rows, departed, ...meta } = await rowsOf(ctx, conn, input.name);
    const row = rows[0];
    if (!row)
      throw new TRPCError({ code: 'NOT_FOUND', message: `PersistentVolume "${input.name}" not found` });
    // its claim, pods and their events: only where the person may list claims and pods
    if (row.claim)
      await allow(ctx, conn.id, {
        verb: 'list',
        resource: 'persistentvolumeclaims',
        namespace: row.claim.namespace,
      });
    if (row.claim)
      await allow(ctx, conn.id, { verb: 'list', resource: 'pods', namespace: row.claim.namespace });
    const events = eventsOf(conn, row);
    const mayEvents = await listableNamespaces(
      ctx,
      conn.id,
      { resource: 'events' },
      events.map((e) => e.namespace),
    );
    return {
      ...meta,
      row,
      departed: departed.filter((d) => d.namespace === row.claim?.namespace),
      events: mayEvents ? events.filter((e) => mayEvents.has(e.namespace)) : events,
    };
  }),
});

/** The volumes part of the API, for the Volumes page's types. */
const volumesOnly = router({ volumes: volumesRouter });
export type VolumesApi = typeof volumesOnly;
