// Safety invariants over the ground truth (seed 000): at most one running process per
// StatefulSet identity, and at most one node writing to each single-writer volume.
// Pure functions: the checker feeds them snapshots, tests feed them tables.
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
  evaluate(running: Process[], writes: (p: Process, pv: string) => boolean): Finding[];
}

export const atMostOnePerIdentity: Invariant = {
  name: 'at-most-one-per-statefulset-identity',
  description: 'At most one running process per StatefulSet pod identity (namespace/name/ordinal).',
  evaluate(running) {
    const byIdentity = new Map<string, Process[]>();
    for (const p of running) if (p.identity) byIdentity.set(p.identity, [...(byIdentity.get(p.identity) ?? []), p]);
    return [...byIdentity]
      .filter(([, ps]) => ps.length > 1)
      .map(([identity, ps]) => ({
        invariant: this.name,
        subject: identity,
        message: `${ps.length} processes run as ${identity}: ${ps.map((p) => `pod uid ${p.podUid} on ${p.node}`).join(', ')}`,
        processes: ps,
      }));
  },
};

const singleWriter = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

export const atMostOneWriterPerVolume: Invariant = {
  name: 'at-most-one-node-writing-rwo-volume',
  description: 'At most one node writes to each ReadWriteOnce/ReadWriteOncePod volume.',
  evaluate(running, writes) {
    const byVolume = new Map<string, Process[]>();
    for (const p of running) {
      for (const v of p.volumes) {
        if (singleWriter.has(v.accessMode) && writes(p, v.pv)) byVolume.set(v.pv, [...(byVolume.get(v.pv) ?? []), p]);
      }
    }
    return [...byVolume]
      .filter(([, ps]) => new Set(ps.map((p) => p.node)).size > 1)
      .map(([pv, ps]) => ({
        invariant: this.name,
        subject: pv,
        message: `volume ${pv} is written from ${[...new Set(ps.map((p) => p.node))].join(' and ')} at once`,
        processes: ps,
      }));
  },
};

export const defaultInvariants: Invariant[] = [atMostOnePerIdentity, atMostOneWriterPerVolume];
