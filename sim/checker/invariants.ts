// Safety invariants over the ground truth (seed 000): at most one running process per
// StatefulSet identity, and at most one node writing to each single-writer volume; (seed 002)
// no two running processes holding the same instance ID of one workload.
// Each invariant says which subjects a process concerns and judges one subject at a
// time, so the checker re-evaluates only what a change touched, even at 150 000 pods.
import type { Process } from '../infra/groundTruth.js';

export interface Finding {
  invariant: string;
  /** what the invariant is about: an identity or a volume */
  subject: string;
  message: string;
  /** the processes that break it */
  processes: Process[];
}

export interface Invariant {
  name: string;
  description: string;
  /** the subjects this running process counts towards */
  subjectsOf(p: Process): string[];
  /** judge one subject given its running processes */
  check(
    subject: string,
    processes: Process[],
    writes: (p: Process, pv: string) => boolean,
  ): Finding | undefined;
}

/**
 * A process cut from every one of its volumes is fenced (seed 000: storage fencing): it may
 * still run, but it can no longer act as its identity, whose state lives in those volumes.
 */
const fencedFromStorage = (p: Process, writes: (p: Process, pv: string) => boolean) =>
  p.volumes.length > 0 && p.volumes.every((v) => !writes(p, v.pv));

export const atMostOnePerIdentity: Invariant = {
  name: 'at-most-one-per-statefulset-identity',
  description:
    'At most one running process per StatefulSet pod identity (namespace/name/ordinal); a process cut from all its volumes by a storage fence does not count.',
  subjectsOf: (p) => (p.identity ? [p.identity] : []),
  check(identity, all, writes) {
    const ps = all.filter((p) => !fencedFromStorage(p, writes));
    if (ps.length < 2) return undefined;
    return {
      invariant: this.name,
      subject: identity,
      message: `${ps.length} processes run as ${identity}: ${ps.map((p) => `pod uid ${p.podUid} on ${p.node}`).join(', ')}`,
      processes: ps,
    };
  },
};

const singleWriter = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

export const atMostOneWriterPerVolume: Invariant = {
  name: 'at-most-one-node-writing-rwo-volume',
  description: 'At most one node writes to each ReadWriteOnce/ReadWriteOncePod volume.',
  subjectsOf: (p) => p.volumes.filter((v) => singleWriter.has(v.accessMode)).map((v) => v.pv),
  check(pv, ps, writes) {
    const writers = ps.filter((p) => writes(p, pv));
    const nodes = [...new Set(writers.map((p) => p.node))];
    if (nodes.length < 2) return undefined;
    return {
      invariant: this.name,
      subject: pv,
      message: `volume ${pv} is written from ${nodes.join(' and ')} at once`,
      processes: writers,
    };
  },
};

/**
 * Seed 002: an instance ID is one instance. Each simulated pod records in the ground truth the
 * ID Palisade gave it (what the workload's map said when it was written) until it gives it back
 * on SIGTERM or dies; two running processes holding one ID of one workload break it — e.g. a
 * partitioned pod, force-deleted, whose stale entry a replacement took over.
 */
export const uniqueInstanceId: Invariant = {
  name: 'unique-instance-id',
  description: 'No two running pods hold the same instance ID of one workload (seed 002).',
  subjectsOf: (p) => (p.instanceId ? [`${p.instanceId.workload}#${p.instanceId.id}`] : []),
  check(subject, ps) {
    if (ps.length < 2) return undefined;
    const [workload, id] = [
      subject.slice(0, subject.lastIndexOf('#')),
      subject.slice(subject.lastIndexOf('#') + 1),
    ];
    return {
      invariant: this.name,
      subject,
      message: `${ps.length} running pods hold instance ID ${id} of ${workload}: ${ps
        .map((p) => `${p.podName} on ${p.node}`)
        .join(', ')}`,
      processes: ps,
    };
  },
};

export const defaultInvariants: Invariant[] = [
  atMostOnePerIdentity,
  atMostOneWriterPerVolume,
  uniqueInstanceId,
];

/** Evaluate invariants over a whole set of processes (tests, one-off audits). */
export function evaluateAll(
  inv: Invariant,
  running: Process[],
  writes: (p: Process, pv: string) => boolean,
): Finding[] {
  const bySubject = new Map<string, Process[]>();
  for (const p of running)
    for (const s of inv.subjectsOf(p)) bySubject.set(s, [...(bySubject.get(s) ?? []), p]);
  return [...bySubject].map(([s, ps]) => inv.check(s, ps, writes)).filter((f): f is Finding => !!f);
}
