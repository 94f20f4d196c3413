// Test helpers: a socket.io subscriber that applies snapshots and deltas the way the
// browser does, and a typed tRPC client.
import { createTRPCClient, httpLink } from '@trpc/client';
import { io, type Socket } from 'socket.io-client';
import type { ClusterHealth, Delta, Kind, Snapshot } from '../../lib/console/protocol.js';
import { SocketEvents } from '../../lib/console/protocol.js';
import type { AppRouter } from '../trpc/router.js';

export function trpcClient(url: string) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc` })] });
}

export interface Subscriber<T> {
  socket: Socket;
  items: Map<string, T>;
  seq: number | undefined;
  snapshots: Snapshot<T>[];
  deltas: Delta<T>[];
  gaps: number;
  health: ClusterHealth[];
  close(): void;
}

export function subscribe<T>(
  url: string,
  cluster: string,
  kind: Kind,
  keyOf: (item: T) => string,
  resumeFrom?: number,
): Subscriber<T> {
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], forceNew: true });
  const s: Subscriber<T> = {
    socket,
    items: new Map(),
    seq: resumeFrom,
    snapshots: [],
    deltas: [],
    gaps: 0,
    health: [],
    close: () => socket.close(),
  };
  socket.on(SocketEvents.snapshot, (snap: Snapshot<T>) => {
    s.snapshots.push(snap);
    s.items = new Map(snap.items.map((i) => [keyOf(i), i]));
    s.seq = snap.seq;
  });
  socket.on(SocketEvents.delta, (d: Delta<T>) => {
    s.deltas.push(d);
    if (s.seq !== undefined && d.fromSeq !== s.seq) s.gaps++;
    for (const u of d.upserts) s.items.set(keyOf(u), u);
    for (const k of d.deletes) s.items.delete(k);
    s.seq = d.seq;
  });
  socket.on(SocketEvents.health, (h: ClusterHealth) => s.health.push(h));
  socket.on('connect', () => socket.emit(SocketEvents.subscribe, { cluster, kind, resumeFrom }));
  return s;
}
