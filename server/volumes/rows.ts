// The RWO attach view's rows, assembled from the console's informers and cache, the fencing
// controller's world (which nodes are fenced, which fence is coming) and, on the embedded
// cluster, the ground truth of who writes. The Volumes page (server/trpc/volumes.ts) and the
// incident view (server/incident/gather.ts) both read them.
import { buildRwoRows, writerCandidateNodes } from '../../lib/volumes/rwoView.js';
import type { DepartedPod, ForceDetachSettings, RwoInput, RwoRow } from '../../lib/volumes/rwoTypes.js';
import type { ClusterConnection, ClusterSpec } from '../kube/connection.js';
import { isFenced } from '../../lib/fencing/view.js';
import { TERMINAL_PHASES } from '../../lib/fencing/types.js';
import { fenceOutlook } from '../../lib/fencing/outlook.js';
import { isWait } from '../../lib/guard/fenceOutlook.js';
import type { NodeFenceNote } from '../../lib/volumes/fenceNote.js';
import { withLease } from '../fencing/facts.js';
import type { FencingService } from '../fencing/service.js';
import { budgetOf, leaseOf, policiesOf } from '../fencing/world.js';
import { readVolumeTruth } from './truth.js';
import { forceDetachOf } from '../kube/forceDetach.js';

/** Where the fencing controllers are (absent where fencing is off). */
type FencingOf = { fencing?: FencingService };

/** What a cluster's spec says about its force detach (see server/kube/forceDetach.ts). */
export type VolumeClusterSpec = ClusterSpec & { forceDetach?: ForceDetachSettings };

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
function fencedNodesOf(ctx: FencingOf, conn: ClusterConnection): Set<string> {
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
function fenceNotesOf(ctx: FencingOf, conn: ClusterConnection, rows: readonly RwoRow[]): NodeFenceNote[] {
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
export async function rowsOf(ctx: FencingOf, conn: ClusterConnection, pvName?: string) {
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
