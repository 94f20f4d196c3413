// Test helpers: a socket.io subscriber that applies snapshots and deltas the way the
// browser does, a typed tRPC client, and a signed-in context for direct callers. Scripts
// (and these tests) sign in with `Authorization: Bearer <a token of the cluster>`.
import type * as k8s from '@kubernetes/client-node';
import { createTRPCClient, httpLink } from '@trpc/client';
import { io, type Socket } from 'socket.io-client';
import type { ClusterHealth, Delta, Kind, Snapshot } from '../../lib/console/protocol.js';
import { SocketEvents } from '../../lib/console/protocol.js';
import type { Console } from '../console.js';
import type { AppRouter } from '../trpc/router.js';
import type { SignedInContext } from '../trpc/trpc.js';

/** The bearer token of a kubeconfig's current user (the embedded clusters' admin has one). */
export function tokenOf(kc: k8s.KubeConfig): string {
  const token = kc.getCurrentUser()?.token;
  if (!token) throw new Error('the kubeconfig has no bearer token');
  return token;
}

export function trpcClient(url: string, token: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/api/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });
}

/** The context a signed-in request gets, for routers' createCaller in tests. */
export async function signedIn(c: Console, token: string): Promise<SignedInContext> {
  const check = await c.auth.tokens.check(token);
  if (!check.ok) throw new Error(`the clusters refused the token: ${check.message}`);
  return {
    clusters: c.clusters,
    protection: c.protection,
    fencing: c.fencing,
    incident: c.incident,
    identity: check.identity,
    access: c.auth.access,
    limits: c.auth.limits,
    auditKey: c.auth.keys.audit,
  };
}

/** A socket.io client signed in with a bearer token (Node's client may send headers). */
export function socketClient(
  url: string,
  token: string,
  opts: { transports?: ('websocket' | 'polling')[] } = {},
) {
  return io(url, {
    path: '/socket.io',
    transports: opts.transports ?? ['websocket'],
    forceNew: true,
    extraHeaders: { authorization: `Bearer ${token}` },
  });
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
  token: string,
  cluster: string,
  kind: Kind,
  keyOf: (item: T) => string,
  resumeFrom?: number,
): Subscriber<T> {
  const socket = socketClient(url, token);
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
