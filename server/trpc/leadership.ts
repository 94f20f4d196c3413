// leadership.state: who runs the controller loops on each cluster, as this console sees it —
// the controller Lease read live (holder, epoch = leaseTransitions, acquire and renew times),
// this console's identity and whether it leads (its epoch, its last renewal), each loop's
// queue, and the history: the terms of the Lease and the stale writes Palisade's webhook
// refused, per epoch and so per replica (lib/leader/history.ts), from the Events Palisade
// records on the Lease and the holder changes this process saw. Every replica answers for
// itself (it names its own identity). Needs `get` on the Lease; the Events need `list events`
// in the Lease's namespace, and without it the answer says so and why (the rest still shows).
import * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import { errorText, isNotFound } from '../../lib/kube/errorText.js';
import {
  type LeaderEvent,
  type LeaseNow,
  type LeaseRef,
  leaderEventOf,
  leadershipHistory,
} from '../../lib/leader/history.js';
import type { ClusterConnection } from '../kube/connection.js';
import { allow, clusterInput as cluster, clusterOf, may, procedure, router } from './trpc.js';

/** Events read per page, and pages at most: a storm of refusals is summed, not streamed */
const PAGE = 500;
const MAX_PAGES = 4;

const iso = (t: unknown): string | undefined => {
  const d = t instanceof Date ? t : typeof t === 'string' ? new Date(t) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
};

const clients = new WeakMap<
  ClusterConnection,
  { coordination: k8s.CoordinationV1Api; core: k8s.CoreV1Api }
>();
function clientsOf(conn: ClusterConnection) {
  let c = clients.get(conn);
  if (!c) {
    c = {
      coordination: conn.spec.kc.makeApiClient(k8s.CoordinationV1Api),
      core: conn.spec.kc.makeApiClient(k8s.CoreV1Api),
    };
    clients.set(conn, c);
  }
  return c;
}

export type LeaseRead =
  | {
      state: 'read';
      holder: string;
      leaseTransitions: number;
      acquireTime?: string;
      renewTime?: string;
      leaseDurationSeconds?: number;
    }
  | { state: 'absent' }
  | { state: 'error'; error: string };

async function readLease(conn: ClusterConnection, ref: LeaseRef): Promise<LeaseRead> {
  try {
    const l = await clientsOf(conn).coordination.readNamespacedLease(ref);
    const s = l.spec ?? {};
    const acquireTime = iso(s.acquireTime);
    const renewTime = iso(s.renewTime);
    return {
      state: 'read',
      holder: s.holderIdentity ?? '',
      leaseTransitions: s.leaseTransitions ?? 0,
      ...(acquireTime ? { acquireTime } : {}),
      ...(renewTime ? { renewTime } : {}),
      ...(s.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: s.leaseDurationSeconds } : {}),
    };
  } catch (e) {
    if (isNotFound(e)) return { state: 'absent' };
    return { state: 'error', error: `reading Lease ${ref.namespace}/${ref.name} failed: ${errorText(e)}` };
  }
}

export type EventsRead =
  | { state: 'read'; count: number; truncated: boolean }
  | { state: 'forbidden'; reason: string }
  | { state: 'error'; error: string };

/** The Events on the Lease (field selector on kind and name; the rest is checked in lib). */
async function readEvents(conn: ClusterConnection, ref: LeaseRef): Promise<[EventsRead, LeaderEvent[]]> {
  const out: LeaderEvent[] = [];
  let token: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await clientsOf(conn).core.listNamespacedEvent({
        namespace: ref.namespace,
        fieldSelector: `involvedObject.kind=Lease,involvedObject.name=${ref.name}`,
        limit: PAGE,
        ...(token ? { _continue: token } : {}),
      });
      for (const e of list.items) out.push(leaderEventOf(e));
      token = list.metadata?._continue || undefined;
      if (!token) break;
    }
  } catch (e) {
    return [
      {
        state: 'error',
        error: `listing the Events on Lease ${ref.namespace}/${ref.name} failed: ${errorText(e)}`,
      },
      out,
    ];
  }
  return [{ state: 'read', count: out.length, truncated: token !== undefined }, out];
}

export const leadershipRouter = router({
  state: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    const manager = ctx.runtime?.get(conn.id);
    const election = ctx.runtime?.election;
    if (election)
      await allow(ctx, conn.id, {
        verb: 'get',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: election.namespace,
        name: election.name,
      });
    if (!manager || !election)
      return {
        elected: false as const,
        cluster: conn.id,
        reason:
          conn.spec.mode === 'read-only'
            ? 'this cluster is read-only: Palisade runs no loops on it'
            : 'no controller loop runs on this cluster (no protection core, no FencePolicy CRD)',
      };
    const ref: LeaseRef = { namespace: election.namespace, name: election.name };
    const eventsAccess = await may(ctx, conn.id, {
      verb: 'list',
      resource: 'events',
      namespace: ref.namespace,
    });
    const [lease, [events, items]] = await Promise.all([
      readLease(conn, ref),
      eventsAccess.allowed
        ? readEvents(conn, ref)
        : Promise.resolve<[EventsRead, LeaderEvent[]]>([
            { state: 'forbidden', reason: eventsAccess.message ?? eventsAccess.reason ?? 'forbidden' },
            [],
          ]),
    ]);
    const s = manager.elector.state();
    const now: LeaseNow | undefined =
      lease.state === 'read'
        ? {
            holder: lease.holder,
            transitions: lease.leaseTransitions,
            ...(lease.acquireTime ? { acquireTime: lease.acquireTime } : {}),
          }
        : undefined;
    return {
      elected: true as const,
      cluster: conn.id,
      /** the server's clock, for ages */
      now: Date.now(),
      ...s,
      leaseRef: ref,
      leaseRead: lease,
      events,
      history: leadershipHistory({ lease: ref, events: items, now, seen: s.transitions }),
      loops: manager.loops.map((l) => {
        const waits: Record<string, number> = {};
        for (const r of l.waitReasons().values()) waits[r] = (waits[r] ?? 0) + 1;
        return {
          name: l.name,
          running: l.running,
          depth: l.depth,
          delayed: l.waiting,
          waits,
        };
      }),
    };
  }),
});

/** The leadership part of the API, for the page's types. */
const leadershipOnly = router({ leadership: leadershipRouter });
export type LeadershipApi = typeof leadershipOnly;
