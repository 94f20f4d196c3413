// The controller Lease's story as Kubernetes Events on the Lease itself: every acquisition
// (reason LeaderElection, like client-go's "became leader") and every leader write Palisade's
// webhook refused for a stale epoch (reason StaleLeaderWrite, `action: epoch-<n>` naming the
// stale writer's epoch, so readers never parse the message). Every replica sees them (the
// Leadership page builds the transitions history and the refusals per replica from them), and
// they outlive the process that wrote them. Pure: the bodies only; server/leader/ writes them.
import type * as k8s from '@kubernetes/client-node';
import { microTime } from '../protection/buckets.js';

export const LEADER_COMPONENT = 'palisade';
export const REASON_ELECTED = 'LeaderElection';
export const REASON_STALE_WRITE = 'StaleLeaderWrite';
/** the cause a refusal carries in its Status details: writers tell it apart without the text */
export const STALE_EPOCH_CAUSE = 'PalisadeStaleLeaderEpoch';

export interface LeaseRef {
  namespace: string;
  name: string;
  uid?: string;
}

const involved = (l: LeaseRef): k8s.V1ObjectReference => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  namespace: l.namespace,
  name: l.name,
  ...(l.uid ? { uid: l.uid } : {}),
});

function leaseEvent(
  lease: LeaseRef,
  e: { reason: string; type: 'Normal' | 'Warning'; message: string; action: string; by: string; at: Date },
): k8s.CoreV1Event {
  const stamp = e.at.getTime().toString(36);
  return {
    metadata: {
      // a name per event: two replicas' events in one millisecond differ by their reporter
      name: `${lease.name}.${e.reason.toLowerCase()}-${stamp}-${hash(e.by + e.message)}`,
      namespace: lease.namespace,
    },
    involvedObject: involved(lease),
    reason: e.reason,
    message: e.message.slice(0, 1024),
    type: e.type,
    source: { component: LEADER_COMPONENT },
    reportingComponent: LEADER_COMPONENT,
    reportingInstance: e.by.slice(0, 128),
    action: e.action,
    eventTime: microTime(e.at.getTime()) as unknown as k8s.V1MicroTime,
    count: 1,
  };
}

/** `holder` acquired the Lease: the epoch it leads with. */
export function electedEvent(lease: LeaseRef, holder: string, epoch: number, at: Date): k8s.CoreV1Event {
  return leaseEvent(lease, {
    reason: REASON_ELECTED,
    type: 'Normal',
    message: `${holder} became leader (epoch ${epoch})`,
    action: `epoch-${epoch}`,
    by: holder,
    at,
  });
}

/** Palisade's webhook (replica `by`) refused a write of the stale epoch `epoch`. */
export function staleWriteEvent(
  lease: LeaseRef,
  w: { epoch: number; what: string; message: string; by: string; at: Date },
): k8s.CoreV1Event {
  return leaseEvent(lease, {
    reason: REASON_STALE_WRITE,
    type: 'Warning',
    message: `refused ${w.what}: ${w.message}`,
    action: `epoch-${w.epoch}`,
    by: w.by,
    at: w.at,
  });
}

/** The epoch an Event of these names (`action: epoch-<n>`); undefined for any other. */
export function eventEpoch(e: { action?: string }): number | undefined {
  const m = /^epoch-(\d{1,15})$/.exec(e.action ?? '');
  return m ? Number(m[1]) : undefined;
}

/** A write refused by the epoch check: its Status carries STALE_EPOCH_CAUSE among the causes. */
export function isStaleEpochRefusal(err: unknown): boolean {
  const e = err as { body?: unknown; code?: number } | null;
  let body = e?.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return false;
    }
  }
  const causes = (body as { details?: { causes?: { reason?: string }[] } } | undefined)?.details?.causes;
  return Array.isArray(causes) && causes.some((c) => c?.reason === STALE_EPOCH_CAUSE);
}

/** short, stable: keeps two reporters' names apart (not a security hash) */
function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}
