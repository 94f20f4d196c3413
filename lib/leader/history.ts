// The Leadership view's history: who led the controller Lease at which epoch, and which stale
// writes Palisade's webhook refused, per replica. Built from the core/v1 Events Palisade records
// on the controller Lease, the Lease itself and the holder changes this process saw. Pure.
//
// The Events this reads (the emitting side writes exactly these; anything else on the Lease is
// ignored, and an Event of these reasons that does not read as below is listed as unreadable):
//
//   involvedObject  apiVersion coordination.k8s.io/v1, kind Lease, the Lease's namespace and name
//   source.component  palisade
//
//   reason LeaderElection, type Normal — one per acquisition
//     message            `<holderIdentity> became leader (epoch <N>)`   (LEADER_MESSAGE below)
//     reportingInstance  <holderIdentity>      (wins over the message's, when both are there)
//     action             optional; when it is `epoch-<N>` it wins over the message's epoch
//
//   reason StaleLeaderWrite, type Warning — a refused write (count: how many it stands for)
//     action             `epoch-<N>`: the epoch the refused write carried   (EPOCH_ACTION below)
//     reportingInstance  optional: the replica whose webhook refused it
//     message            shown as written, never parsed, e.g. `refused UPDATE
//                        nodefences/status.palisade.dev a1-2: written by the leader of epoch 3,
//                        but Lease kube-system/palisade-controller is at epoch 4 (holder X)`
//
// The stale writer is named by mapping its epoch to a holder: the LeaderElection Events first,
// then the Lease as read now (its holder holds its leaseTransitions), then what this process saw.
import type * as k8s from '@kubernetes/client-node';
import { eventEpoch, LEADER_COMPONENT, REASON_ELECTED, REASON_STALE_WRITE } from './events.js';

// the names the writing side (lib/leader/events.ts) gives them
export const EVENT_SOURCE = LEADER_COMPONENT;
export const LEADER_ELECTION = REASON_ELECTED;
export const STALE_LEADER_WRITE = REASON_STALE_WRITE;
export const LEASE_API_VERSION = 'coordination.k8s.io/v1';

const LEADER_MESSAGE = /^(\S+) became leader \(epoch (\d{1,15})\)$/;

/** The epoch an Event's `action` names (`epoch-<N>`); undefined when it names none. */
export function epochOfAction(action: string | undefined): number | undefined {
  return eventEpoch({ action });
}

/** The holder and epoch of a LeaderElection message; undefined when it does not read so. */
export function parseLeaderMessage(
  message: string | undefined,
): { holder: string; epoch: number } | undefined {
  const m = message?.match(LEADER_MESSAGE);
  return m ? { holder: m[1], epoch: Number(m[2]) } : undefined;
}

export interface LeaseRef {
  namespace: string;
  name: string;
}

/** The fields of a core/v1 Event the history reads (see leaderEventOf). */
export interface LeaderEvent {
  name: string;
  reason: string;
  type: string;
  message: string;
  action?: string;
  reportingInstance?: string;
  source?: string;
  involved: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
  /** when it first and last happened (ISO) */
  firstAt?: string;
  lastAt?: string;
  count: number;
}

const iso = (t: unknown): string | undefined => {
  if (t instanceof Date) return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
  if (typeof t === 'string' && t) return Number.isNaN(Date.parse(t)) ? undefined : new Date(t).toISOString();
  return undefined;
};

/** The history's view of an Event as the client returns it (timestamps as Date or text). */
export function leaderEventOf(e: k8s.CoreV1Event): LeaderEvent {
  const first = iso(e.firstTimestamp) ?? iso(e.eventTime) ?? iso(e.metadata?.creationTimestamp);
  const last = iso(e.series?.lastObservedTime) ?? iso(e.lastTimestamp) ?? iso(e.eventTime) ?? first;
  const count = Math.max(1, e.series?.count ?? e.count ?? 1);
  const o = e.involvedObject ?? {};
  return {
    name: e.metadata?.name ?? '',
    reason: e.reason ?? '',
    type: e.type ?? '',
    message: e.message ?? '',
    ...(e.action ? { action: e.action } : {}),
    ...(e.reportingInstance ? { reportingInstance: e.reportingInstance } : {}),
    ...(e.source?.component ? { source: e.source.component } : {}),
    involved: { apiVersion: o.apiVersion, kind: o.kind, namespace: o.namespace, name: o.name },
    ...(first ? { firstAt: first } : {}),
    ...(last ? { lastAt: last } : {}),
    count,
  };
}

/** The Lease as read now. */
export interface LeaseNow {
  holder: string;
  /** leaseTransitions: the epoch of its holder's term */
  transitions: number;
  acquireTime?: string;
}

/** A change of holder this process saw (the elector's Transition; holder '' is a released Lease). */
export interface SeenTransition {
  at: string;
  holder: string;
  epoch: number;
}

export type HistorySource = 'event' | 'lease' | 'seen';

/** One term: a holder at an epoch ('' : the Lease was released at that epoch). */
export interface HistoryEntry {
  epoch: number;
  holder: string;
  /** when it began (the Event), or when the Lease says it was acquired, or when this process saw it */
  at?: string;
  /** what says so, most authoritative first */
  sources: HistorySource[];
}

export interface StaleTally {
  /** the epoch the refused writes carried (undefined: the Event names none) */
  epoch?: number;
  /** who led at that epoch; more than one if the history disagrees; empty if unknown */
  holders: string[];
  /** refused writes recorded (Event counts summed; the writer may record a burst once) */
  count: number;
  /** the replicas whose webhook refused them (reportingInstance), when the Events say */
  refusedBy: string[];
  firstAt?: string;
  lastAt?: string;
  /** the latest refusal's message, as written */
  lastMessage: string;
}

export interface Unreadable {
  event: string;
  reason: string;
  why: string;
}

export interface LeadershipHistory {
  /** newest epoch first */
  terms: HistoryEntry[];
  /** per epoch (so per replica), newest epoch first; an epoch no Event names comes last */
  stale: StaleTally[];
  staleTotal: number;
  unreadable: Unreadable[];
}

const onLease = (e: LeaderEvent, lease: LeaseRef) =>
  e.involved.apiVersion === LEASE_API_VERSION &&
  e.involved.kind === 'Lease' &&
  e.involved.namespace === lease.namespace &&
  e.involved.name === lease.name &&
  e.source === EVENT_SOURCE;

const earlier = (a: string | undefined, b: string | undefined) => (!a ? b : !b ? a : a <= b ? a : b);

/** Terms and refused stale writes of one controller Lease. */
export function leadershipHistory(input: {
  lease: LeaseRef;
  events: readonly LeaderEvent[];
  now?: LeaseNow;
  seen?: readonly SeenTransition[];
}): LeadershipHistory {
  const { lease } = input;
  const unreadable: Unreadable[] = [];
  const terms = new Map<string, HistoryEntry>();
  const key = (epoch: number, holder: string) => `${epoch}\u0000${holder}`;
  const add = (epoch: number, holder: string, at: string | undefined, source: HistorySource) => {
    const k = key(epoch, holder);
    const t = terms.get(k);
    if (!t) {
      terms.set(k, { epoch, holder, ...(at ? { at } : {}), sources: [source] });
      return;
    }
    if (!t.sources.includes(source)) t.sources.push(source);
    // the first source that knows when wins (events before the Lease before this process's eyes)
    if (!t.at && at) t.at = at;
  };

  const ours = input.events.filter((e) => onLease(e, lease));
  for (const e of ours.filter((x) => x.reason === LEADER_ELECTION)) {
    const parsed = parseLeaderMessage(e.message);
    const epoch = epochOfAction(e.action) ?? parsed?.epoch;
    const holder = e.reportingInstance || parsed?.holder;
    if (epoch === undefined || !holder) {
      unreadable.push({
        event: e.name,
        reason: e.reason,
        why: `its message does not read "<holder> became leader (epoch <N>)": ${JSON.stringify(e.message)}`,
      });
      continue;
    }
    add(epoch, holder, e.firstAt ?? e.lastAt, 'event');
  }
  if (input.now?.holder) add(input.now.transitions, input.now.holder, input.now.acquireTime, 'lease');
  for (const s of input.seen ?? []) add(s.epoch, s.holder, s.at, 'seen');

  // epoch -> holders: the most authoritative source that names one decides (Events, then the
  // Lease, then this process); Events that disagree with each other are all listed
  const holdersAt = new Map<number, string[]>();
  for (const source of ['event', 'lease', 'seen'] as const)
    for (const t of terms.values()) {
      if (!t.holder || !t.sources.includes(source)) continue;
      const known = holdersAt.get(t.epoch);
      if (!known) holdersAt.set(t.epoch, [t.holder]);
      else if (source === 'event' && !known.includes(t.holder)) known.push(t.holder);
    }

  const tallies = new Map<number | undefined, StaleTally>();
  let staleTotal = 0;
  for (const e of ours.filter((x) => x.reason === STALE_LEADER_WRITE)) {
    const epoch = epochOfAction(e.action);
    if (epoch === undefined)
      unreadable.push({
        event: e.name,
        reason: e.reason,
        why: `its action is ${e.action ? JSON.stringify(e.action) : 'missing'}, not "epoch-<N>": the stale writer's epoch is unknown`,
      });
    staleTotal += e.count;
    const t = tallies.get(epoch);
    const at = e.lastAt ?? e.firstAt;
    if (!t) {
      tallies.set(epoch, {
        ...(epoch !== undefined ? { epoch } : {}),
        holders: epoch !== undefined ? [...(holdersAt.get(epoch) ?? [])].sort() : [],
        count: e.count,
        refusedBy: e.reportingInstance ? [e.reportingInstance] : [],
        ...(e.firstAt ? { firstAt: e.firstAt } : {}),
        ...(at ? { lastAt: at } : {}),
        lastMessage: e.message,
      });
      continue;
    }
    t.count += e.count;
    if (e.reportingInstance && !t.refusedBy.includes(e.reportingInstance)) {
      t.refusedBy.push(e.reportingInstance);
      t.refusedBy.sort();
    }
    const first = earlier(t.firstAt, e.firstAt);
    if (first) t.firstAt = first;
    if (at && (!t.lastAt || at >= t.lastAt)) {
      t.lastAt = at;
      t.lastMessage = e.message;
    }
  }

  return {
    terms: [...terms.values()].sort((a, b) => b.epoch - a.epoch || (b.at ?? '').localeCompare(a.at ?? '')),
    stale: [...tallies.values()].sort((a, b) => (b.epoch ?? -1) - (a.epoch ?? -1)),
    staleTotal,
    unreadable,
  };
}
