// Remediation state per failed node: the fence's phase, the out-of-service taint, the
// VolumeAttachments still naming the node, how long it has been in its state, the next timeout
// and the next human step ("power on or repair a2-1", "approve the fence", "wait: fence in 8 s").
// Pure.
import type { NodeView } from '../console/protocol.js';
import { nodeDisplayState, OUT_OF_SERVICE_TAINT, hasTaint } from '../console/ui/states.js';
import { TERMINAL_PHASES } from '../fencing/types.js';
import { isFenced } from '../fencing/view.js';
import { type FenceContext, fenceContextOf, gaveUp } from './fenceContext.js';
import { failedNodes, isLive } from './nodes.js';
import type { HumanStep, IncidentInput, Remediation, Timeout } from './types.js';

function nextStep(c: FenceContext, node: NodeView, now: number): HumanStep {
  const f = c.fence;
  const outOfService = hasTaint(node, OUT_OF_SERVICE_TAINT);
  if ((f && isFenced(f.phase)) || (!f && outOfService))
    return node.ready === 'Ready' && outOfService
      ? { step: 'remove-out-of-service-taint' }
      : { step: 'power-on-or-repair', removeTaint: outOfService };
  if (f?.phase === 'AwaitingApproval') return { step: 'approve-fence', fence: f.name };
  if (f && gaveUp(f)) return { step: 'fence-manually', why: f.phase === 'Failed' ? 'failed' : 'cancelled' };
  if (f)
    return {
      step: 'wait-for-fence',
      fence: f.name,
      phase: f.phase,
      ...(f.fenceAt ? { fenceAt: f.fenceAt } : {}),
      // a paused policy holds a Detected fence: no countdown runs (issue 25, finding 3)
      ...(f.paused && f.phase === 'Detected' ? { paused: true } : {}),
    };
  if (c.upcoming) return { step: 'wait-for-fence', fenceAt: c.upcoming.fenceAt, paused: c.upcoming.paused };
  if (c.held?.reason === 'budget') return { step: 'budget-holds-fence', why: c.held.why };
  if (nodeDisplayState(node, now) === 'suspect') return { step: 'wait-for-heartbeat' };
  if (c.covered) return { step: 'wait-for-fence' };
  return { step: 'fence-manually', why: 'no-policy' };
}

function nextTimeout(
  c: FenceContext,
  forceDetachAt: (number | undefined)[],
  now: number,
): Timeout | undefined {
  const f = c.fence;
  const all: Timeout[] = [];
  const fenceAt = f?.fenceAt ?? c.upcoming?.fenceAt;
  const paused = f ? f.paused && f.phase === 'Detected' : c.upcoming?.paused;
  if (fenceAt !== undefined && (!f || f.phase === 'Detected') && !paused)
    all.push({ kind: 'fence-at', at: fenceAt });
  if (f?.phase === 'Fencing' && f.attemptStartedAt !== undefined && f.timeoutMs !== undefined)
    all.push({ kind: 'fence-attempt', at: f.attemptStartedAt + f.timeoutMs, subject: f.name });
  for (const at of forceDetachAt) if (at !== undefined) all.push({ kind: 'force-detach', at });
  return all.filter((t) => t.at >= now - 1000).sort((a, b) => a.at - b.at)[0];
}

function rowOf(node: NodeView, i: IncidentInput): Remediation {
  const c = fenceContextOf(i.fencing, node.name);
  const atts = i.volumes.flatMap((v) =>
    v.attachments.filter((a) => a.node === node.name).map((a) => ({ ...a, pv: v.pv })),
  );
  const f = c.fence;
  return {
    node: node.name,
    state: nodeDisplayState(node, i.now),
    ...(node.readySince !== undefined ? { since: node.readySince } : {}),
    ...(node.lastHeartbeat !== undefined ? { lastHeartbeat: node.lastHeartbeat } : {}),
    ...(f
      ? {
          fence: {
            name: f.name,
            policy: f.policy,
            phase: f.phase,
            ...(f.fenceAt !== undefined ? { fenceAt: f.fenceAt } : {}),
            ...(c.held ? { held: c.held.reason } : {}),
            ...(f.paused ? { paused: true } : {}),
          },
        }
      : {}),
    ...(c.upcoming ? { upcoming: c.upcoming } : {}),
    outOfService: hasTaint(node, OUT_OF_SERVICE_TAINT),
    volumeAttachments: atts.map((a) => ({ name: a.name, pv: a.pv, detaching: a.detaching })),
    pods: i.pods.filter((p) => p.node === node.name && isLive(p)).length,
    ...optional(
      'nextTimeout',
      nextTimeout(
        c,
        atts.map((a) => a.forceDetachAt),
        i.now,
      ),
    ),
    next: nextStep(c, node, i.now),
  };
}

function optional<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V };
}

/** A row per failed node, and per node whose fence is still under way; longest-failing first. */
export function remediationOf(i: IncidentInput): Remediation[] {
  const failed = failedNodes(i.nodes, i.now);
  const fencing = new Set(i.fencing.fences.filter((f) => !TERMINAL_PHASES.has(f.phase)).map((f) => f.node));
  return i.nodes
    .filter((n) => failed.has(n.name) || fencing.has(n.name) || hasTaint(n, OUT_OF_SERVICE_TAINT))
    .map((n) => rowOf(n, i))
    .sort((a, b) => (a.since ?? 0) - (b.since ?? 0) || a.node.localeCompare(b.node));
}
