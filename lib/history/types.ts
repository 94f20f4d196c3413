// The history store's entries: one fact about a cluster at one time (a node condition that
// changed, a simulated fault, a fence step, an admission denial, a guarded action, a workload's
// replicas, a Warning Event, a pod placed on a node or leaving it). The id is a natural key built from the Kubernetes fact itself
// (uid, resourceVersion, transition time), so two replicas recording the same fact, or one
// replica re-reading it after a restart, write one row.
import { z } from 'zod';

export const HISTORY_KINDS = [
  'node-condition',
  'fault',
  'fence-step',
  'fence-cancel',
  'admission-denial',
  'guarded-action',
  'workload',
  'warning-event',
  // where pods ran (bound, terminating, deleted): for replay; the timeline shows them on request
  'pod',
] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const historyKind = z.enum(HISTORY_KINDS, {
  error: (i) => `must be one of ${HISTORY_KINDS.join(', ')}, got ${JSON.stringify(i.input)}`,
});

const isoTime = z.iso.datetime({ offset: true, error: 'must be an ISO time like 2026-01-02T03:04:05Z' });

export const historySubject = z.strictObject({
  kind: z.string().min(1, 'must not be empty'),
  namespace: z.string().min(1).optional(),
  name: z.string().min(1, 'must not be empty'),
  uid: z.string().min(1).optional(),
});
export type HistorySubject = z.infer<typeof historySubject>;

export const historyEntry = z.strictObject({
  /** the natural key, unique per cluster */
  id: z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters'),
  cluster: z.string().min(1, 'must not be empty'),
  at: isoTime,
  kind: historyKind,
  severity: z.enum(SEVERITIES),
  subject: historySubject,
  /** who acted, when a person (or Palisade itself) did */
  actor: z.string().min(1).optional(),
  /** a code: the Event reason, the fence phase, the Ready status... */
  reason: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type HistoryEntry = z.infer<typeof historyEntry>;

/** What Palisade itself is called as an actor (fence steps, releases). */
export const PALISADE_ACTOR = 'palisade';
