// The history entries Palisade derives from what its watches see. Each id is a natural key
// taken from the Kubernetes fact (an Event's uid and count, a Ready transition's time, a fence
// step's phase and time, a workload's resourceVersion), so every replica — and every restart —
// derives the same id for the same fact and the store keeps one row.
import { INFRA_COMPONENT, infraVerbOf } from '../console/infraEvents.js';
import type { Refusal } from '../protection/verdict.js';
import { z } from 'zod';
import { CONSOLE_COMPONENT, simulatedVerbOf } from '../console/actionEvents.js';
import type { NodeState } from '../console/protocol.js';
import type { EventView } from '../console/views.js';
import { auditRow } from '../guard/audit.js';
import { type HistoryEntry, PALISADE_ACTOR, type Severity } from './types.js';

const iso = (ms: number) => new Date(ms).toISOString();

export interface NodeReadyFact {
  name: string;
  ready: NodeState;
  /** the Ready condition's lastTransitionTime (ms) */
  readySince?: number;
  reason?: string;
  message?: string;
}

/** The node's Ready state as a transition; the same transition always has the same id. */
export function nodeConditionEntry(cluster: string, n: NodeReadyFact, observedAt: number): HistoryEntry {
  const at = n.readySince ?? observedAt;
  const why = n.reason ? ` (${n.reason})` : '';
  return {
    id: `node:${n.name}:${n.ready}:${n.readySince ?? 'unrecorded'}`,
    cluster,
    at: iso(at),
    kind: 'node-condition',
    severity: n.ready === 'Ready' ? 'info' : 'critical',
    subject: { kind: 'Node', name: n.name },
    reason: n.ready,
    message: `node ${n.name} is ${n.ready}${why}`,
    ...(n.reason || n.message ? { details: { conditionReason: n.reason, conditionMessage: n.message } } : {}),
  };
}

function subjectOf(e: EventView): HistoryEntry['subject'] {
  const i = e.involved;
  return {
    kind: i.kind || 'Object',
    ...(i.namespace ? { namespace: i.namespace } : {}),
    name: i.name || '(unnamed)',
    ...(i.uid ? { uid: i.uid } : {}),
  };
}

/**
 * A fault, a guarded action or a Warning Event, from a Kubernetes Event; undefined for the
 * Normal Events of others (the timeline is for what went wrong and what was done about it).
 */
export function eventEntry(cluster: string, e: EventView, auditKey?: Buffer): HistoryEntry | undefined {
  if (!e.uid || e.lastSeen === undefined) return undefined;
  const base = {
    id: `event:${e.uid}:${e.count}`,
    cluster,
    at: iso(e.lastSeen),
    subject: subjectOf(e),
    reason: e.reason ?? '',
    message: e.message ?? '',
  };
  const details = { eventUid: e.uid, eventNamespace: e.namespace, count: e.count, source: e.source };
  // Palisade's own record only when its seal checks out (anyone may write an Event that says
  // "by: admin"); one Event per record, so a copy made after the original expired adds nothing
  const row = e.source === CONSOLE_COMPONENT ? auditRow(e, CONSOLE_COMPONENT, auditKey) : undefined;
  if (row) {
    const own = { ...base, id: `audit:${e.namespace}/${e.name}`, at: iso(row.at ?? e.lastSeen) };
    if (row.action === 'simulation')
      return {
        ...own,
        kind: 'fault',
        severity: e.type === 'Warning' ? 'warning' : 'info',
        actor: row.by,
        details: { ...details, verb: simulatedVerbOf(e.reason) ?? e.reason, what: row.what },
      };
    return {
      ...own,
      kind: 'guarded-action',
      severity: row.outcome === 'overridden' ? 'warning' : 'info',
      actor: row.by,
      details: {
        ...details,
        action: row.action,
        outcome: row.outcome,
        what: row.what,
        why: row.why,
        reasons: row.reasons,
      },
    };
  }
  // the embedded cluster's infrastructure: a fault or recovery, whoever caused it (an Event anyone
  // who may create Events could write too, so it names no person: "infrastructure")
  const verb = e.source === INFRA_COMPONENT ? infraVerbOf(e.reason) : undefined;
  if (verb)
    return {
      ...base,
      kind: 'fault',
      severity: e.type === 'Warning' ? 'warning' : 'info',
      actor: 'infrastructure',
      details: { ...details, verb, reportedBy: 'infrastructure' },
    };
  // an Event that claims to be the console's without its seal: nobody's record, not even a warning
  if (e.type !== 'Warning' || e.source === CONSOLE_COMPONENT) return undefined;
  return { ...base, kind: 'warning-event', severity: 'warning', details };
}

// ---- NodeFences: read from the object itself (status.steps), so this needs no fencing code

const released = z.object({
  pods: z.array(z.string()).default([]),
  volumeAttachments: z.array(z.string()).default([]),
});

const fenceObject = z.object({
  metadata: z.object({ name: z.string().min(1), uid: z.string().optional() }),
  spec: z.object({
    nodeName: z.string().min(1),
    policy: z.string().default(''),
    approvedBy: z.string().nullish(),
    cancelRequested: z.object({ by: z.string(), reason: z.string().default('') }).nullish(),
    // Fence now: a person asked for this fence, and why
    requestedBy: z.object({ by: z.string(), reason: z.string().default('') }).nullish(),
  }),
  status: z
    .object({
      steps: z
        .array(
          z.object({
            phase: z.string().min(1),
            at: z.string().min(1),
            message: z.string().default(''),
            released: released.nullish(),
          }),
        )
        .default([]),
    })
    .default({ steps: [] }),
});

const FENCE_SEVERITY: Record<string, Severity> = {
  Fencing: 'critical',
  Fenced: 'critical',
  Failed: 'critical',
  Releasing: 'warning',
  Released: 'warning',
  Cancelled: 'warning',
  AwaitingApproval: 'warning',
};

/** One entry per step of a NodeFence (Cancelled as fence-cancel); [] for what is not a fence. */
export function fenceEntries(cluster: string, raw: unknown): HistoryEntry[] {
  const r = fenceObject.safeParse(raw);
  if (!r.success) return [];
  const { metadata: m, spec, status } = r.data;
  return status.steps.flatMap((s): HistoryEntry[] => {
    const ms = Date.parse(s.at);
    if (Number.isNaN(ms)) return [];
    const cancelled = s.phase === 'Cancelled';
    // the person behind the step: who cancelled, who asked for the fence (Fence now) or approved
    // it; Palisade for the steps it takes by itself (issue 25: Fence now read "automatic")
    const person =
      (s.phase === 'Detected' || s.phase === 'Fencing') && spec.requestedBy
        ? spec.requestedBy
        : s.phase === 'Fencing' && spec.approvedBy
          ? { by: spec.approvedBy, reason: '' }
          : undefined;
    const actor = cancelled ? (spec.cancelRequested?.by ?? PALISADE_ACTOR) : (person?.by ?? PALISADE_ACTOR);
    return [
      {
        id: `fence:${m.uid ?? m.name}:${s.phase}:${s.at}`,
        cluster,
        at: iso(ms),
        kind: cancelled ? 'fence-cancel' : 'fence-step',
        severity: FENCE_SEVERITY[s.phase] ?? 'info',
        subject: { kind: 'NodeFence', name: m.name, ...(m.uid ? { uid: m.uid } : {}) },
        actor,
        reason: s.phase,
        message: s.message || `fence of node ${spec.nodeName}: ${s.phase}`,
        details: {
          node: spec.nodeName,
          policy: spec.policy,
          ...(cancelled && spec.cancelRequested ? { why: spec.cancelRequested.reason } : {}),
          ...(person ? { person: true, ...(person.reason ? { why: person.reason } : {}) } : {}),
          ...(s.released ? { released: s.released } : {}),
        },
      },
    ];
  });
}

// ---- admission denials (the deletion-protection webhook's decisions)

export interface DenialFact {
  at: number;
  protector: string;
  cell: string;
  pod: string;
  podUid: string;
  operation: string;
  /** why it was refused, typed (lib/protection/verdict.ts) */
  verdict: Refusal;
  code: number;
  message: string;
  requester: string;
}

export function denialEntry(cluster: string, d: DenialFact): HistoryEntry {
  const [namespace, name] = d.pod.includes('/') ? d.pod.split('/', 2) : [undefined, d.pod];
  return {
    id: `denial:${d.cell}:${d.podUid}:${d.operation}:${d.at}`,
    cluster,
    at: iso(d.at),
    kind: 'admission-denial',
    severity: 'warning',
    subject: {
      kind: 'Pod',
      ...(namespace ? { namespace } : {}),
      name: name || d.pod,
      uid: d.podUid || undefined,
    },
    ...(d.requester ? { actor: d.requester } : {}),
    reason: String(d.code),
    message: d.message,
    details: { protector: d.protector, cell: d.cell, operation: d.operation, verdict: d.verdict },
  };
}

// ---- workloads: desired and ready replicas

export interface WorkloadFact {
  kind: 'Deployment' | 'StatefulSet';
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  replicas: number;
  readyReplicas: number;
}

/** An entry when desired or ready replicas changed between two versions; else undefined. */
export function workloadEntry(
  cluster: string,
  next: WorkloadFact,
  old: WorkloadFact | undefined,
  observedAt: number,
): HistoryEntry | undefined {
  if (!old || (old.replicas === next.replicas && old.readyReplicas === next.readyReplicas)) return undefined;
  const below = next.readyReplicas < next.replicas;
  return {
    id: `workload:${next.uid}:${next.resourceVersion}`,
    cluster,
    at: iso(observedAt),
    kind: 'workload',
    severity: below ? 'warning' : 'info',
    subject: { kind: next.kind, namespace: next.namespace, name: next.name, uid: next.uid },
    reason: below ? 'BelowDesired' : 'AtDesired',
    message: `${next.kind} ${next.namespace}/${next.name}: ${next.readyReplicas}/${next.replicas} ready (was ${old.readyReplicas}/${old.replicas})`,
    details: {
      replicas: next.replicas,
      readyReplicas: next.readyReplicas,
      previous: { replicas: old.replicas, readyReplicas: old.readyReplicas },
    },
  };
}

// ---- pod placements (replay's pods)

/** What a pod placement entry needs of a pod (a PodView fits). */
export interface PodFact {
  uid: string;
  namespace: string;
  name: string;
  node?: string;
  createdAt?: number;
  deletionTimestamp?: number;
  deletionGracePeriodSeconds?: number;
  owner?: { kind: string; name: string };
}

function podPlacement(cluster: string, p: PodFact, reason: 'Bound' | 'Terminating' | 'Deleted', at: number) {
  const node = p.node!;
  const what = { Bound: 'runs on', Terminating: 'is terminating on', Deleted: 'is gone from' }[reason];
  return {
    id: `pod:${p.uid}:${reason}${reason === 'Bound' ? `:${node}` : ''}`,
    cluster,
    at: iso(at),
    kind: 'pod' as const,
    severity: 'info' as const,
    subject: { kind: 'Pod', namespace: p.namespace, name: p.name, uid: p.uid },
    reason,
    message: `pod ${p.namespace}/${p.name} ${what} node ${node}`,
    details: { node, ...(p.owner ? { owner: `${p.owner.kind}/${p.owner.name}` } : {}) },
  };
}

/**
 * Where a pod ran, for replay: bound to a node (first seen there: its creation time when the
 * watch lists it, else now), terminating (when its deletion was asked for), deleted (now). A pod
 * not yet on a node has none. Each fact has one id, whoever observes it, whenever.
 */
export function podEntries(
  cluster: string,
  next: PodFact | undefined,
  old: PodFact | undefined,
  observedAt: number,
): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  if (next?.node && next.node !== old?.node)
    out.push(podPlacement(cluster, next, 'Bound', old ? observedAt : (next.createdAt ?? observedAt)));
  if (next?.node && next.deletionTimestamp !== undefined && old?.deletionTimestamp === undefined) {
    const askedAt = next.deletionTimestamp - (next.deletionGracePeriodSeconds ?? 0) * 1000;
    out.push(podPlacement(cluster, next, 'Terminating', Math.min(askedAt, observedAt)));
  }
  if (!next && old?.node) out.push(podPlacement(cluster, old, 'Deleted', observedAt));
  return out;
}
