// Leader election on a coordination.k8s.io Lease, the rule client-go's leaderelection package
// follows: the holder renews; anyone else takes the Lease only when it is free or has not been
// renewed for its whole duration. Expiry is measured on the *local* clock from when this process
// first saw the current record (not from the renewTime written by another machine), so clock
// skew between consoles cannot make a live leader look expired. Pure: the adapter in
// server/leader does the reads and the conditional writes.

export interface LeaseRecord {
  holder: string;
  durationSeconds: number;
  /** leaseTransitions: how many times the holder changed (the epoch) */
  transitions: number;
  /** renewTime as written, compared only for change */
  renewTime?: string;
}

export type LeaseStep =
  | { kind: 'create' }
  /** this process holds it: write a new renewTime */
  | { kind: 'renew' }
  /** free, or not renewed for its duration: take it (transitions + 1) */
  | { kind: 'acquire' }
  | { kind: 'follow'; holder: string; expiresAt: number };

export interface Observed {
  record: LeaseRecord;
  /** local time (ms) when this record (holder + renewTime) was first seen */
  at: number;
}

export function judgeLease(
  current: LeaseRecord | undefined,
  observed: Observed | undefined,
  me: string,
  now: number,
): LeaseStep {
  if (!current) return { kind: 'create' };
  if (current.holder === me) return { kind: 'renew' };
  if (!current.holder) return { kind: 'acquire' };
  const since = observed && sameRecord(observed.record, current) ? observed.at : now;
  const expiresAt = since + current.durationSeconds * 1000;
  if (now >= expiresAt) return { kind: 'acquire' };
  return { kind: 'follow', holder: current.holder, expiresAt };
}

export const sameRecord = (a: LeaseRecord, b: LeaseRecord) =>
  a.holder === b.holder && a.renewTime === b.renewTime && a.transitions === b.transitions;

/** The first observation of a record is kept while the record stays the same. */
export function observe(
  prev: Observed | undefined,
  current: LeaseRecord | undefined,
  now: number,
): Observed | undefined {
  if (!current) return undefined;
  return prev && sameRecord(prev.record, current) ? prev : { record: current, at: now };
}
