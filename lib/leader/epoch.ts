// Epoch fencing of the leader's writes (seed 001's sequence number, which Kubernetes itself never
// built): the controller Lease's leaseTransitions is the epoch — it grows by one every time the
// holder changes, and every holder is a new process start — and every write the leader makes to
// Palisade-owned state carries the epoch it led with, where admission can see it: the request's
// fieldManager (CreateOptions, UpdateOptions and PatchOptions all carry it, status writes too, and
// kube-apiserver hands them to webhooks as AdmissionRequest.options). Palisade's webhook reads the
// Lease live and refuses a write whose epoch is older: a leader paused past its Lease (GC, a
// stopped VM, SIGSTOP) wakes up and finds every write it attempts refused. Pure.

const PREFIX = 'palisade-leader-e';

/** The fieldManager a leader of this epoch writes with. */
export function epochFieldManager(epoch: number): string {
  if (!Number.isInteger(epoch) || epoch < 0) throw new Error(`an epoch is a whole number, not ${epoch}`);
  return `${PREFIX}${epoch}`;
}

/** The epoch a fieldManager carries; undefined for writes that are not a leader's. */
export function epochOf(fieldManager: string | undefined): number | undefined {
  if (!fieldManager?.startsWith(PREFIX)) return undefined;
  const digits = fieldManager.slice(PREFIX.length);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : Number.NaN;
}

export interface EpochLease {
  namespace: string;
  name: string;
  /** leaseTransitions, read live */
  transitions: number;
  holder: string;
}

export type EpochVerdict =
  | { kind: 'not-a-leader-write' }
  | { kind: 'current'; epoch: number }
  | { kind: 'stale'; epoch: number; current: number; message: string }
  | { kind: 'malformed'; message: string };

/** Judge one write: a leader's write must carry the Lease's current epoch. */
export function judgeEpoch(fieldManager: string | undefined, lease: EpochLease): EpochVerdict {
  const epoch = epochOf(fieldManager);
  if (epoch === undefined) return { kind: 'not-a-leader-write' };
  const where = `Lease ${lease.namespace}/${lease.name}`;
  if (Number.isNaN(epoch))
    return {
      kind: 'malformed',
      message: `fieldManager "${fieldManager}" does not name an epoch (${PREFIX}<n>)`,
    };
  if (epoch === lease.transitions) return { kind: 'current', epoch };
  return {
    kind: 'stale',
    epoch,
    current: lease.transitions,
    message:
      epoch < lease.transitions
        ? `stale leader: this write carries epoch ${epoch}, but the ${where} is at epoch ${lease.transitions} (held by ${lease.holder || 'nobody'}): a newer leader has taken over`
        : `this write carries epoch ${epoch}, ahead of the ${where} at epoch ${lease.transitions}: no leader has held that epoch`,
  };
}
