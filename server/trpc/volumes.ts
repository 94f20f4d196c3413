// volumes.*: the RWO attach view. `list` gives one row per PersistentVolume (attached node,
// users, waiters with their Multi-Attach age, stuck detaches, force-detach countdown, risk);
// `get` one volume with the events of its claim, pods and nodes. Read from the console's
// informers and cache; on the embedded cluster the writers come from the ground truth.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { EventView } from '../../lib/console/views.js';
import { buildRwoRows, writerCandidateNodes } from '../../lib/volumes/rwoView.js';
import type { DepartedPod, ForceDetachSettings, RwoInput, RwoRow } from '../../lib/volumes/rwoTypes.js';
import type { ClusterConnection, ClusterSpec } from '../kube/connection.js';
import { isFenced } from '../../lib/fencing/view.js';
import { TERMINAL_PHASES } from '../../lib/fencing/types.js';
import { fenceOutlook } from '../../lib/fencing/outlook.js';
import { isWait } from '../../lib/guard/fenceOutlook.js';
import type { NodeFenceNote } from '../../lib/volumes/fenceNote.js';
import { withLease } from '../fencing/facts.js';
import { budgetOf, leaseOf, policiesOf } from '../fencing/world.js';
import {
  allow,
  type Context,
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';
import { readVolumeTruth } from './volumesTruth.js';
import { forceDetachOf, KUBE_FORCE_DETACH } from '../kube/forceDetach.js';

/** What a cluster's spec says about its force detach (see server/kube/forceDetach.ts). */
export type VolumeClusterSpec = ClusterSpec & { forceDetach?: ForceDetachSettings };
export { forceDetachOf, KUBE_FORCE_DETACH };

const VOLUME_KINDS = ['persistentvolumes', 'persistentvolumeclaims', 'volumeattachments', 'pods', 'events'];

function departedPods(conn: ClusterConnection): DepartedPod[] {
  return conn.cache.departedClaimPods().map(({ view, at }) => ({
    namespace: view.namespace,
    name: view.name,
    uid: view.uid,
    ...(view.node ? { node: view.node } : {}),
    claims: view.claims,
    at,
  }));
}

/** Everything the view needs from the console's memory; `pvName` narrows it to one volume. */
function inputOf(conn: ClusterConnection, now: number, fencedNodes: Set<string>, pvName?: string): RwoInput {
  const { persistentVolumes, persistentVolumeClaims, volumeAttachments } = conn.informers;
  const pods = conn.cache.podList().filter((p) => p.claims.length > 0);
  // only pending pods can be waiting: only their attach failures are read
  const events = pods
    .filter((p) => p.state === 'Pending' || p.phase === 'Pending')
    .flatMap((p) => conn.cache.eventsFor('Pod', p.namespace, p.name, p.uid))
    .filter((e) => e.reason === 'FailedAttachVolume');
  const pvs = [...persistentVolumes.values()].filter((v) => !pvName || v.name === pvName);
  const attachments = [...volumeAttachments.values()].filter((a) => !pvName || a.pv === pvName);
  const claims = new Set(pvs.map((v) => v.boundTo).filter(Boolean));
  const mine = <T extends { namespace: string; claims: string[] }>(p: T) =>
    !pvName || p.claims.some((c) => claims.has(`${p.namespace}/${c}`));
  return {
    now,
    pvs,
    pvcs: [...persistentVolumeClaims.values()],
    attachments,
    pods: pods.filter(mine),
    nodes: conn.cache.nodeList(),
    events,
    departed: departedPods(conn).filter(mine),
    forceDetach: forceDetachOf(conn),
    fencedNodes,
  };
}

/** Nodes whose NodeFence says they are fenced now: detaching their volumes is safe. */
function fencedNodesOf(ctx: Pick<Context, 'fencing'>, conn: ClusterConnection): Set<string> {
  const fences = ctx.fencing?.controllers.get(conn.id)?.informers.fences;
  return new Set(
    [...(fences?.values() ?? [])]
      .filter((f) => isFenced(f.value?.status.phase))
      .map((f) => f.value!.spec.nodeName),
  );
}

/**
 * The fence on, or coming for, each node the volumes are attached to — so a stuck volume's row
 * says "fence in progress on a2-1" and the commander waits for it rather than detaching.
 */
function fenceNotesOf(
  ctx: Pick<Context, 'fencing'>,
  conn: ClusterConnection,
  rows: readonly RwoRow[],
): NodeFenceNote[] {
  const inf = ctx.fencing?.controllers.get(conn.id)?.informers;
  if (!inf) return [];
  const nodes = new Set(rows.flatMap((r) => r.attachments.map((a) => a.node)));
  const policies = policiesOf(inf);
  const now = Date.now();
  return [...nodes].flatMap((node): NodeFenceNote[] => {
    const facts = inf.nodes.get(node);
    const f = inf.fences.get(node)?.value;
    const live = f && !TERMINAL_PHASES.has(f.status.phase) ? f : undefined;
    // the controller's own world (its informers, policy and budget count): lib/fencing/outlook.ts
    const outlook =
      facts &&
      fenceOutlook({
        now,
        nodeName: node,
        node: withLease(facts, leaseOf(inf, node)),
        fence: f,
        policies,
        budget: (spec) => budgetOf(inf, spec, now),
      });
    const coming =
      outlook && (isWait(outlook) || outlook.code === 'fence-paused' || outlook.code === 'fence-held')
        ? outlook
        : undefined;
    if (!live && !coming) return [];
    return [{ node, ...(live ? { phase: live.status.phase } : {}), ...(coming ? { outlook: coming } : {}) }];
  });
}

/** Whether the writers come from a ground truth, and why not when they cannot. */
type TruthState = { available: boolean; error?: string };

async function withTruth(
  conn: ClusterConnection,
  input: RwoInput,
): Promise<{ input: RwoInput; truth: TruthState }> {
  const ep = conn.spec.infra;
  if (!ep) return { input, truth: { available: false } };
  const read = await readVolumeTruth(ep, writerCandidateNodes(input));
  if ('error' in read) return { input, truth: { available: false, error: read.error } };
  return { input: { ...input, truth: read.truth }, truth: { available: true } };
}

/** The RWO rows of one cluster (or one volume); the incident view reads them too. */
export async function rowsOf(ctx: Pick<Context, 'fencing'>, conn: ClusterConnection, pvName?: string) {
  const now = Date.now();
  const { input, truth } = await withTruth(conn, inputOf(conn, now, fencedNodesOf(ctx, conn), pvName));
  const health = conn.health();
  const rows = buildRwoRows(input);
  return {
    cluster: conn.id,
    now,
    embedded: health.embedded,
    /** the informers this view reads have all listed at least once */
    synced: health.informers.filter((i) => VOLUME_KINDS.includes(i.kind)).every((i) => i.synced),
    forceDetach: forceDetachOf(conn),
    truth,
    rows,
    fences: fenceNotesOf(ctx, conn, rows),
    departed: input.departed ?? [],
  };
}

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
