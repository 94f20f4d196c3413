// The at-risk list, ranked by impact: StatefulSet identities stuck on failed nodes (their
// replacement cannot start until the old pod is gone), pods with exclusive (RWO) volumes on
// failed nodes (a second writer if released too early), other pods on failed nodes, stuck
// volumes, and workloads whose protector stands at its floor (zero disruptions allowed). Each
// has its safe next action and what must hold first. Whether a force delete is safe is the
// guard's decision (lib/guard), judged here on the cache's facts; the guarded dialog judges
// again on live objects before anything is sent. Pure.
import { isOverdue } from '../console/ui/states.js';
import { atOrBelowFloor } from '../console/ui/protection.js';
import type { NodeView, PodView } from '../console/protocol.js';
import { fenceState } from '../guard/fenced.js';
import { judgeForceDelete } from '../guard/forceDelete.js';
import type { FenceFacts, NodeFacts } from '../guard/types.js';
import { type FenceContext, fenceContextOf, gaveUp } from './fenceContext.js';
import { failedNodes, isLive } from './nodes.js';
import type {
  AtRisk,
  GuardedTarget,
  IncidentInput,
  NextAction,
  Precondition,
  RiskKind,
  VolumeGlance,
} from './types.js';

export const MAX_AT_RISK = 200;

const IMPACT: Record<RiskKind, number> = {
  'statefulset-identity-stuck': 50,
  'singleton-rwo-on-failed-node': 40,
  'volume-split-brain-risk': 45,
  'volume-stuck': 35,
  'zero-disruptions-allowed': 30,
  'pod-on-failed-node': 10,
};

export function nodeFacts(n: NodeView): NodeFacts {
  return {
    name: n.name,
    ready: n.ready === 'Ready' ? 'True' : n.ready === 'NotReady' ? 'False' : 'Unknown',
    taints: n.taints,
  };
}

export function fenceFacts(c: FenceContext): FenceFacts | undefined {
  const f = c.fence;
  return (
    f && { name: f.name, nodeName: f.node, phase: f.phase, nodeUid: f.nodeUid, approvedBy: f.approvedBy }
  );
}

/** What must hold before a failed node's pods may be released, each met or not. */
export function fencePreconditions(c: FenceContext, node: NodeView | undefined, now: number): Precondition[] {
  const subject = c.node;
  const fenced = fenceState(node && nodeFacts(node), c.node, fenceFacts(c)).fenced;
  const out: Precondition[] = [];
  if (!c.fence) out.push({ code: 'policy-covers-node', met: c.covered, subject });
  if (c.covered && !c.fence)
    out.push({ code: 'budget-allows-fencing', met: c.held?.reason !== 'budget', subject });
  const fenceAt = c.fence?.fenceAt ?? c.upcoming?.fenceAt;
  if (fenceAt !== undefined && !fenced)
    out.push({ code: 'warning-window-over', met: now >= fenceAt, subject });
  if (c.fence?.manual)
    out.push({
      code: 'fence-approved',
      met: !!c.fence.approvedBy || c.fence.phase !== 'AwaitingApproval',
      subject: c.fence.name,
    });
  out.push({ code: 'node-fenced', met: fenced, subject });
  return out;
}

/** The safe next step for a failed node's workloads while it is not fenced. */
export function waitOrFence(c: FenceContext): NextAction {
  const node = c.node;
  const f = c.fence;
  if (f?.phase === 'AwaitingApproval') return { action: 'approve-fence', node, fence: f.name };
  if (f && gaveUp(f))
    return { action: 'fence-node', node, why: f.phase === 'Failed' ? 'failed' : 'cancelled' };
  if (f)
    return {
      action: 'wait-for-fence',
      node,
      fence: f.name,
      ...(f.fenceAt ? { fenceAt: f.fenceAt } : {}),
      ...(f.paused && f.phase === 'Detected' ? { paused: true } : {}),
    };
  if (c.upcoming)
    return { action: 'wait-for-fence', node, fenceAt: c.upcoming.fenceAt, paused: c.upcoming.paused };
  if (c.held?.reason === 'budget') return { action: 'fence-node', node, why: 'budget' };
  if (c.covered) return { action: 'wait-for-fence', node };
  return { action: 'fence-node', node, why: 'no-policy' };
}

/**
 * The fencing action a next step calls for: approve the fence waiting for it, or fence the node
 * by hand (Fence now) when the budget holds its fence or its fence failed or was cancelled. No
 * policy means no agent: nothing Palisade can do, the row says what a person must.
 */
function fenceActionOf(next: NextAction): GuardedTarget | undefined {
  if (next.action === 'approve-fence') return { action: 'approveFence', fence: next.fence };
  if (next.action === 'fence-node' && next.why !== 'no-policy')
    return { action: 'fenceNode', node: next.node };
  return undefined;
}

function volumesOfPod(p: PodView, volumes: VolumeGlance[]) {
  const mine = volumes.filter(
    (v) => v.exclusive && v.claim?.namespace === p.namespace && p.claims.includes(v.claim.name),
  );
  return {
    names: mine.map((v) => v.pv),
    attachedRwo: mine
      .filter((v) => v.attachments.some((a) => a.node === p.node && a.attached))
      .map((v) => ({ pv: v.pv, claim: v.claim!.name })),
  };
}

function podKinds(p: PodView, rwo: boolean, now: number): RiskKind[] {
  const kinds: RiskKind[] = [];
  if (p.owner?.kind === 'StatefulSet') kinds.push('statefulset-identity-stuck');
  if (rwo) kinds.push('singleton-rwo-on-failed-node');
  if (kinds.length === 0) kinds.push('pod-on-failed-node');
  // a Terminating pod past its grace period on a node that cannot finish it
  if (p.owner?.kind === 'StatefulSet' && isOverdue(p, now) && !kinds.includes('statefulset-identity-stuck'))
    kinds.push('statefulset-identity-stuck');
  return kinds;
}

function podRow(p: PodView, i: IncidentInput, node: NodeView | undefined): AtRisk {
  const c = fenceContextOf(i.fencing, p.node!);
  const vols = volumesOfPod(p, i.volumes);
  const verdict = judgeForceDelete({
    pod: {
      namespace: p.namespace,
      name: p.name,
      uid: p.uid,
      nodeName: p.node,
      owner: p.owner,
      phase: p.phase,
      deletionTimestamp: p.deletionTimestamp ? new Date(p.deletionTimestamp).toISOString() : undefined,
      attachedRwo: vols.attachedRwo,
    },
    node: node && nodeFacts(node),
    nodeFence: fenceFacts(c),
  });
  const kinds = podKinds(p, vols.names.length > 0, i.now);
  const next: NextAction = verdict.safe
    ? { action: 'force-delete', pod: { namespace: p.namespace, name: p.name } }
    : waitOrFence(c);
  const guarded = podGuarded(next, c, p);
  const terminating = p.deletionTimestamp !== undefined;
  return {
    id: `pod/${p.namespace}/${p.name}`,
    kinds,
    impact:
      Math.max(...kinds.map((k) => IMPACT[k])) + (terminating ? 5 : 0) + (node?.ready === 'Ready' ? 0 : 2),
    pod: { namespace: p.namespace, name: p.name, uid: p.uid, node: p.node, terminating },
    ...(p.owner ? { workload: { kind: p.owner.kind, namespace: p.namespace, name: p.owner.name } } : {}),
    node: p.node,
    volumes: vols.names,
    next,
    preconditions: fencePreconditions(c, node, i.now),
    guard: { action: 'forceDeletePod', safe: verdict.safe },
    guarded,
  };
}

/**
 * The row's button: the fence's action when a person must take one; while the safe next action is
 * to wait for a fence not yet running, Fence now (the faster safe way), never Force delete beside
 * "wait" (issue 25, finding 7); nothing while the fence runs; Force delete when the guard allows
 * it, or when no policy covers the node (its dialog says what a person must confirm first).
 */
function podGuarded(next: NextAction, c: FenceContext, p: PodView): GuardedTarget | undefined {
  const fenceAction = fenceActionOf(next);
  if (fenceAction) return fenceAction;
  if (next.action === 'wait-for-fence') {
    const running = c.fence && c.fence.phase !== 'Detected' && c.fence.phase !== 'AwaitingApproval';
    return running ? undefined : { action: 'fenceNode', node: next.node };
  }
  return { action: 'forceDeletePod', namespace: p.namespace, name: p.name };
}

function protectorRows(i: IncidentInput): AtRisk[] {
  return i.protectors.filter(atOrBelowFloor).map((p) => ({
    id: `protector/${p.key}`,
    kinds: ['zero-disruptions-allowed'],
    impact: IMPACT['zero-disruptions-allowed'],
    protector: p.key,
    volumes: [],
    next: { action: 'wait-for-replicas', protector: p.key },
    preconditions: [{ code: 'replicas-above-floor', met: false, subject: p.key }],
  }));
}

/**
 * Stuck volumes and those at split-brain risk whose pods no row names (their pod is gone or
 * elsewhere): one row per attachment on a failed node. Detaching is safe once that node is fenced
 * (the guard's rule, lib/guard/detach); until then the fence comes first.
 */
function volumeRows(i: IncidentInput, failed: Map<string, unknown>, named: Set<string>): AtRisk[] {
  const byName = new Map(i.nodes.map((n) => [n.name, n]));
  return i.volumes
    .filter((v) => (v.risk === 'stuck' || v.risk === 'split-brain-risk') && !named.has(v.pv))
    .flatMap((v) =>
      v.attachments
        .filter((a) => a.attached && failed.has(a.node))
        .map((a): AtRisk => {
          const c = fenceContextOf(i.fencing, a.node);
          const node = byName.get(a.node);
          const fenced = fenceState(node && nodeFacts(node), a.node, fenceFacts(c)).fenced;
          const kind: RiskKind = v.risk === 'stuck' ? 'volume-stuck' : 'volume-split-brain-risk';
          return {
            id: `volume/${v.pv}/${a.name}`,
            kinds: [kind],
            impact: IMPACT[kind],
            attachment: a.name,
            node: a.node,
            volumes: [v.pv],
            next: fenced ? { action: 'detach', attachment: a.name, pv: v.pv } : waitOrFence(c),
            preconditions: fencePreconditions(c, node, i.now),
            guarded: (!fenced && fenceActionOf(waitOrFence(c))) || {
              action: 'detachVolume',
              attachment: a.name,
            },
          };
        }),
    );
}

export function atRiskOf(i: IncidentInput): { rows: AtRisk[]; more: number } {
  const failed = failedNodes(i.nodes, i.now);
  const byName = new Map(i.nodes.map((n) => [n.name, n]));
  const pods = i.pods.filter((p) => p.node && failed.has(p.node) && isLive(p));
  // a StatefulSet pod stuck Terminating past its grace on a node that still looks Ready
  const overdue = i.pods.filter(
    (p) => p.owner?.kind === 'StatefulSet' && isOverdue(p, i.now) && !(p.node && failed.has(p.node)),
  );
  const podRows = [...pods, ...overdue.filter((p) => p.node)].map((p) => podRow(p, i, byName.get(p.node!)));
  const named = new Set(podRows.flatMap((r) => r.volumes));
  const rows = [...podRows, ...volumeRows(i, failed, named), ...protectorRows(i)].sort(
    (a, b) => b.impact - a.impact || a.id.localeCompare(b.id),
  );
  return { rows: rows.slice(0, MAX_AT_RISK), more: Math.max(0, rows.length - MAX_AT_RISK) };
}
