// history.*: the incident timeline and replay, from the history store. Whoever may list the
// cluster's nodes may read them; entries about a namespaced object are shown only where the
// person may list Events (as the Audit page does), so the history tells no one more than the
// cluster would.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { timelineFilter } from '../../lib/history/filter.js';
import type { HistoryEntry } from '../../lib/history/types.js';
import type { HistoryStore } from '../history/store.js';
import {
  allow,
  clusterInput,
  clusterOf,
  listableNamespaces,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const isoTime = z.iso.datetime({ offset: true, error: 'must be an ISO time like 2026-01-02T03:04:05Z' });

export const replayInput = z.object({ cluster: clusterInput, at: isoTime });

/** The open store, or PRECONDITION_FAILED saying why there is none. */
export async function storeOf(ctx: SignedInContext): Promise<HistoryStore> {
  const store = await ctx.history?.ready;
  if (!store)
    throw new TRPCError({
      code: 'PRECONDITION_FAILED',
      message: ctx.history
        ? 'the history store could not be opened (the server’s log says why)'
        : 'this console keeps no history',
    });
  return store;
}

/** Of these entries, those the person may see: namespaced subjects only where they may list Events. */
export async function visibleEntries(ctx: SignedInContext, cluster: string, entries: HistoryEntry[]) {
  const namespaces = entries.map((e) => e.subject.namespace).filter((n): n is string => !!n);
  const visible = await listableNamespaces(ctx, cluster, { resource: 'events' }, namespaces);
  return visible ? entries.filter((e) => !e.subject.namespace || visible.has(e.subject.namespace)) : entries;
}

export const historyRouter = router({
  /** the merged timeline: newest first, within an absolute window, by kind and text */
  timeline: procedure.input(timelineFilter).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', resource: 'nodes' });
    const store = await storeOf(ctx);
    const entries = await store.query(input);
    return { entries: await visibleEntries(ctx, conn.id, entries), backend: store.backend };
  }),
  /** the map's nodes as they were at `at` */
  replay: procedure.input(replayInput).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', resource: 'nodes' });
    const store = await storeOf(ctx);
    const live = conn.cache.nodeList();
    const replay = await store.replay(
      conn.id,
      input.at,
      live.map((n) => n.name),
    );
    // laid out as the map lays it out: each node's zone and rack as the live Node says
    const where = new Map(live.map((n) => [n.name, n]));
    for (const n of replay.nodes) {
      const w = where.get(n.node);
      if (w) Object.assign(n, { zone: w.zone, rack: w.rack });
    }
    return replay;
  }),
});
