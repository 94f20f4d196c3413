'use client';
// Live data: one socket.io connection; snapshots and deltas for the selected cluster go into
// the React Query cache under ['live', cluster, kind]. Nothing polls.
//
//  - subscribe {cluster, kind} -> `snapshot` replaces the collection
//  - `delta` applies if its fromSeq is the seq we hold; otherwise re-subscribe without resumeFrom
//  - on reconnect, re-subscribe with resumeFrom = last seq applied, in its snapshot's epoch (the
//    replica that numbered it: another one answers with a snapshot)
//  - a server that disconnects us on purpose is stopping: connect again (to another replica)
//  - `health` goes to ['live', cluster, 'health']
import { type QueryClient, skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { io, type Socket as IoSocket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@/lib/console/live';
import {
  type ClusterHealth,
  type Delta,
  type Kind,
  type NodeView,
  type PodView,
  room,
  type Snapshot,
  SocketEvents,
  type SubscribeRequest,
} from '@/lib/console/protocol';
import {
  applyNodeDelta,
  applyPodDelta,
  type NodeCollection,
  nodesFromSnapshot,
  type PodCollection,
  podsFromSnapshot,
} from '@/lib/console/ui/live';
import { afterDisconnect, reconnectDelayMs, subscribeRequest } from '@/lib/console/ui/reconnect';
import { fetchSession, goToSignIn } from '../auth/session';
import { useCluster } from './cluster';

/** The browser's socket, typed by the one event map both ends share (lib/console/live.ts). */
export type Socket = IoSocket<ServerToClientEvents, ClientToServerEvents>;

export type ConnState = 'connecting' | 'connected' | 'disconnected';

export const liveKey = (cluster: string | undefined, kind: Kind | 'health') =>
  ['live', cluster ?? '', kind] as const;

const KINDS: Kind[] = ['nodes', 'pods'];

interface LiveCtx {
  conn: ConnState;
  /** when the connection was last lost (ms), while disconnected */
  lostAt?: number;
  /** rooms whose snapshot has not arrived yet */
  syncing: boolean;
  /** the server refused a subscription (e.g. unknown cluster) */
  error?: string;
}
const Ctx = createContext<LiveCtx>({ conn: 'connecting', syncing: true });
/** the one socket, for features with rooms of their own (ground truth, termination steps) */
const SocketCtx = createContext<Socket | null>(null);

export function configureLiveQueries(qc: QueryClient): void {
  qc.setQueryDefaults(['live'], {
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    structuralSharing: false,
  });
}

export function LiveProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const { cluster } = useCluster();
  const [conn, setConn] = useState<ConnState>('connecting');
  const [lostAt, setLostAt] = useState<number | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const socketRef = useRef<Socket | null>(null);
  const [socketState, setSocketState] = useState<Socket | null>(null);
  const clusterRef = useRef<string | undefined>(cluster);
  /** room -> last seq applied */
  const seqs = useRef(new Map<string, number>());
  /** room -> the epoch its seqs count in (the replica that sent the snapshot) */
  const epochs = useRef(new Map<string, string>());
  /** rooms waiting for a snapshot after a gap: ignore their deltas until then */
  const resyncing = useRef(new Set<string>());
  const subscribeRef = useRef<((c: string, kind: Kind, resume: boolean) => void) | null>(null);

  useEffect(() => {
    const socket: Socket = io({ path: '/socket.io', transports: ['websocket', 'polling'] });
    socketRef.current = socket;
    setSocketState(socket);

    const subscribe = (c: string, kind: Kind, resume: boolean) => {
      const r = room(c, kind);
      const seq = seqs.current.get(r);
      const last = resume && seq !== undefined ? { seq, epoch: epochs.current.get(r) } : undefined;
      const req: SubscribeRequest = subscribeRequest(c, kind, last);
      if (!last) setPending((p) => new Set(p).add(r));
      socket.emit(SocketEvents.subscribe, req, (reply?: { ok: boolean; error?: string }) => {
        if (reply && !reply.ok) setError(reply.error ?? 'subscribe failed');
        else setError(undefined);
      });
    };

    socket.on('connect', () => {
      setConn('connected');
      setLostAt(undefined);
      // after a failover another replica serves this page: the user menu names it
      void qc.invalidateQueries({ queryKey: ['auth', 'session'] });
      const c = clusterRef.current;
      if (c) for (const k of KINDS) subscribe(c, k, true);
    });
    let again: ReturnType<typeof setTimeout> | undefined;
    socket.on('disconnect', (reason) => {
      setConn('disconnected');
      setLostAt((t) => t ?? Date.now());
      // a replica that stops disconnects its sockets, and socket.io leaves those down
      if (afterDisconnect(reason) === 'reconnect')
        again = setTimeout(() => socket.connect(), reconnectDelayMs(Math.random()));
    });
    socket.on('connect_error', (e) => {
      if (/unauthenticated/.test(e.message) || (e as { description?: number }).description === 401)
        return goToSignIn();
      setConn('disconnected');
      setLostAt((t) => t ?? Date.now());
      // a refused WebSocket upgrade says only "websocket error": ask whether the session still
      // exists (issue 25: after a restart the page said "Reconnecting…" for ever, never why)
      void sessionGone();
    });
    // the server ends the connection with the session, and says why
    socket.on('session:ended', (m: { why?: string }) => goToSignIn(m?.why));

    socket.on(SocketEvents.snapshot, (s: Snapshot<NodeView | PodView>) => {
      if (s.cluster !== clusterRef.current) return;
      const r = room(s.cluster, s.kind);
      if (s.kind === 'nodes')
        qc.setQueryData(liveKey(s.cluster, 'nodes'), nodesFromSnapshot(s as Snapshot<NodeView>));
      else qc.setQueryData(liveKey(s.cluster, 'pods'), podsFromSnapshot(s as Snapshot<PodView>));
      seqs.current.set(r, s.seq);
      if (s.epoch) epochs.current.set(r, s.epoch);
      else epochs.current.delete(r);
      resyncing.current.delete(r);
      setPending((p) => {
        if (!p.has(r)) return p;
        const n = new Set(p);
        n.delete(r);
        return n;
      });
    });

    socket.on(SocketEvents.delta, (d: Delta<NodeView | PodView>) => {
      if (d.cluster !== clusterRef.current) return;
      const r = room(d.cluster, d.kind);
      if (resyncing.current.has(r)) return;
      const res =
        d.kind === 'nodes'
          ? applyNodeDelta(qc.getQueryData<NodeCollection>(liveKey(d.cluster, 'nodes')), d as Delta<NodeView>)
          : applyPodDelta(qc.getQueryData<PodCollection>(liveKey(d.cluster, 'pods')), d as Delta<PodView>);
      if (!res.ok) {
        if (d.seq <= (seqs.current.get(r) ?? -1)) return; // an old delta we already have
        resyncing.current.add(r);
        seqs.current.delete(r);
        subscribe(d.cluster, d.kind, false);
        return;
      }
      qc.setQueryData(liveKey(d.cluster, d.kind), res.next);
      seqs.current.set(r, d.seq);
    });

    socket.on(SocketEvents.health, (h: ClusterHealth) => {
      qc.setQueryData(liveKey(h.cluster, 'health'), h);
    });

    subscribeRef.current = subscribe;
    return () => {
      clearTimeout(again);
      socket.removeAllListeners();
      socket.close();
      socketRef.current = null;
      setSocketState(null);
      subscribeRef.current = null;
    };
  }, [qc]);

  // follow the selected cluster
  useEffect(() => {
    const prev = clusterRef.current;
    clusterRef.current = cluster;
    const socket = socketRef.current;
    if (!socket?.connected) return;
    if (prev && prev !== cluster)
      for (const kind of KINDS) {
        socket.emit(SocketEvents.unsubscribe, { cluster: prev, kind } satisfies SubscribeRequest);
        seqs.current.delete(room(prev, kind));
      }
    if (cluster && (prev !== cluster || !seqs.current.has(room(cluster, 'nodes'))))
      for (const kind of KINDS) subscribeRef.current?.(cluster, kind, false);
  }, [cluster]);

  const syncing = !!cluster && KINDS.some((k) => pending.has(room(cluster, k)));
  return (
    <SocketCtx.Provider value={socketState}>
      <Ctx.Provider value={{ conn, lostAt, syncing, error }}>{children}</Ctx.Provider>
    </SocketCtx.Provider>
  );
}

export function useSocket(): Socket | null {
  return useContext(SocketCtx);
}

/**
 * Joins a server room while mounted: `watch` is sent now and after every reconnect (the
 * server forgets rooms with the connection), `unwatch` on unmount. `onResync` runs after a
 * reconnect, for callers that must re-read what they may have missed.
 */
export function useRoom(
  event:
    | { watch: 'watchGhosts' | 'watchTermination'; unwatch: 'unwatchGhosts' | 'unwatchTermination' }
    | undefined,
  args: { cluster: string; podUid?: string } | undefined,
  onResync?: () => void,
): void {
  const socket = useSocket();
  const key = JSON.stringify(args ?? null);
  const resync = useRef(onResync);
  resync.current = onResync;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `args`
  useEffect(() => {
    if (!socket || !event || !args) return;
    let first = true;
    const watch = () => {
      socket.emit(event.watch, args);
      if (!first) resync.current?.();
      first = false;
    };
    if (socket.connected) watch();
    socket.on('connect', watch);
    return () => {
      socket.off('connect', watch);
      if (socket.connected) socket.emit(event.unwatch, args);
    };
  }, [socket, event?.watch, event?.unwatch, key]);
}

export function useConnection(): LiveCtx {
  return useContext(Ctx);
}

export function useNodes(cluster: string | undefined): NodeCollection | undefined {
  return useQuery<NodeCollection>({ queryKey: liveKey(cluster, 'nodes'), queryFn: skipToken }).data;
}

export function usePods(cluster: string | undefined): PodCollection | undefined {
  return useQuery<PodCollection>({ queryKey: liveKey(cluster, 'pods'), queryFn: skipToken }).data;
}

export function useHealth(cluster: string | undefined): ClusterHealth | undefined {
  return useQuery<ClusterHealth>({ queryKey: liveKey(cluster, 'health'), queryFn: skipToken }).data;
}

/** The selected cluster's health: live over the socket, else as clusters.list last gave it. */
export function useSelectedHealth(): ClusterHealth | undefined {
  const { cluster, current } = useCluster();
  return useHealth(cluster) ?? current?.health;
}

let checkingSession = false;

/** After a failed connect: off to the sign-in page, saying why, if the console no longer knows the session. */
async function sessionGone(): Promise<void> {
  if (checkingSession) return;
  checkingSession = true;
  try {
    const s = await fetchSession();
    if (!s.signedIn) goToSignIn('gone');
  } catch {
    // the console is down (restarting): the next failed connect asks again
  } finally {
    checkingSession = false;
  }
}
