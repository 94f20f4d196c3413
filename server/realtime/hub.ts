// The socket.io hub: browsers subscribe to (cluster, kind) rooms and get a snapshot (or
// only the deltas they missed), then one coalesced delta per room at most every 100 ms,
// and their clusters' health. A socket whose outgoing buffer backs up with deltas (not with its
// own snapshot, lib/console/backlog.ts) is skipped rather than waited for, and gets a fresh
// snapshot once it drains, so one slow browser never slows the others. A socket sees only what its person may list: a room is joined after the
// cluster says so (SelfSubjectAccessReview), and a person limited to some namespaces gets the
// room's snapshot and deltas filtered to them, re-checked as access answers expire.
import type { LiveServer as Server, LiveSocket as Socket } from './sockets.js';
import { z } from 'zod';
import {
  type ClusterId,
  type Delta,
  type Kind,
  type NodeView,
  type PodView,
  room,
  type Snapshot,
  SocketEvents,
} from '../../lib/console/protocol.js';
import { Backlog } from '../../lib/console/backlog.js';
import { ACCESS_TTL_MS } from '../auth/access.js';
import type { ConsoleAuth } from '../auth/service.js';
import { identityOf } from '../auth/sockets.js';
import type { ClusterConnection } from '../kube/connection.js';
import { RoomFeed } from './feed.js';
import { filterDelta, filterSnapshot, type Scope, sameScope, scopeOf } from './scope.js';

/** what the map's rooms carry */
type Item = NodeView | PodView;

export interface HubOptions {
  intervalMs?: number;
  /** packets queued for one socket (beyond its last snapshot) beyond which it counts as slow */
  maxQueuedPackets?: number;
  /** how much is queued for a socket, about a KiB a packet (default: engine.io's and the websocket's queues) */
  queued?: (socket: Socket) => number;
}

const subscribeRequest = z.object({
  cluster: z.string().min(1),
  kind: z.enum(['nodes', 'pods']),
  resumeFrom: z.number().int().nonnegative().optional(),
  epoch: z.string().max(64).optional(),
});

/** The optional acknowledgement a client may ask for with its subscribe. */
export type SubscribeAck =
  | { ok: true; seq: number; resumed: boolean; scope: 'all' | 'namespaces' }
  | { ok: false; error: string; forbidden?: boolean };

/** A socket that may see only part of a room: it gets filtered copies, not the room's broadcast. */
interface Limited {
  socket: Socket;
  room: string;
  cluster: ClusterId;
  kind: Kind;
  scope: Scope;
}

const healthRoom = (cluster: ClusterId) => `${cluster}/health`;

type Feed = RoomFeed<NodeView> | RoomFeed<PodView>;

function feedsFor(conn: ClusterConnection) {
  const nodes = new RoomFeed<NodeView>(conn.id, 'nodes', () => conn.cache.nodeList());
  const pods = new RoomFeed<PodView>(conn.id, 'pods', () => conn.cache.podList());
  conn.cache.onChange((kind, key, view) => {
    if (kind === 'nodes') nodes.change(key, view as NodeView | undefined);
    else pods.change(key, view as PodView | undefined);
  });
  return { nodes, pods } satisfies Record<Kind, Feed>;
}

function queued(socket: Socket): number {
  const conn = socket.conn as unknown as {
    writeBuffer?: unknown[];
    transport?: { socket?: { bufferedAmount?: number } };
  };
  // engine.io's own queue, plus what a websocket has accepted but not yet sent (~1 KiB a packet)
  const ws = conn.transport?.socket?.bufferedAmount ?? 0;
  return (conn.writeBuffer?.length ?? 0) + Math.floor(ws / 1024);
}

export class RealtimeHub {
  private readonly feeds = new Map<string, Feed>();
  /** per room: sockets skipped while slow, owed a snapshot */
  private readonly behind = new Map<string, Set<string>>();
  /** per room: socket id -> its limited subscription */
  private readonly limited = new Map<string, Map<string, Limited>>();
  /** per socket: how much of its queue its last snapshot may still be */
  private readonly backlog = new Backlog();
  private readonly queued: (socket: Socket) => number;
  private readonly timer: NodeJS.Timeout;
  private readonly rescoper: NodeJS.Timeout;

  constructor(
    private readonly io: Server,
    private readonly clusters: Map<ClusterId, ClusterConnection>,
    private readonly auth: ConsoleAuth,
    private readonly opts: HubOptions = {},
  ) {
    this.queued = opts.queued ?? queued;
    for (const conn of clusters.values()) {
      const f = feedsFor(conn);
      this.feeds.set(room(conn.id, 'nodes'), f.nodes);
      this.feeds.set(room(conn.id, 'pods'), f.pods);
      conn.onHealth((h) => io.to(healthRoom(conn.id)).emit(SocketEvents.health, h));
    }
    io.on('connection', (socket) => this.connected(socket));
    this.timer = setInterval(() => this.tick(), opts.intervalMs ?? 100);
    this.rescoper = setInterval(() => void this.rescope(), ACCESS_TTL_MS);
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.rescoper);
  }

  private connected(socket: Socket) {
    socket.on(SocketEvents.subscribe, (req: unknown, ack?: unknown) => {
      void this.subscribe(socket, req).then((reply) => {
        if (typeof ack === 'function') ack(reply);
        else if (!reply.ok) socket.emit('subscribe-error', reply.error);
      });
    });
    socket.on(SocketEvents.unsubscribe, (req: unknown) => {
      const parsed = subscribeRequest.safeParse(req);
      if (!parsed.success) return;
      const r = room(parsed.data.cluster, parsed.data.kind);
      void socket.leave(r);
      this.behind.get(r)?.delete(socket.id);
      this.limited.get(r)?.delete(socket.id);
    });
    socket.on('disconnect', () => {
      for (const set of this.behind.values()) set.delete(socket.id);
      for (const m of this.limited.values()) m.delete(socket.id);
      this.backlog.forget(socket.id);
    });
  }

  private scope(socket: Socket, conn: ClusterConnection, kind: Kind): Promise<Scope> {
    const identity = identityOf(socket);
    if (!identity) return Promise.resolve({ kind: 'denied', message: 'sign in first' });
    return scopeOf(this.auth.access, identity, conn.id, kind, () =>
      conn.cache.podList().map((p) => p.namespace),
    );
  }

  private async subscribe(socket: Socket, req: unknown): Promise<SubscribeAck> {
    const parsed = subscribeRequest.safeParse(req);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      return { ok: false, error: `subscribe: ${i.path.join('.') || '(root)'}: ${i.message}` };
    }
    const { cluster, kind, resumeFrom, epoch } = parsed.data;
    const r = room(cluster, kind);
    const feed = this.feeds.get(r);
    const conn = this.clusters.get(cluster);
    if (!feed || !conn)
      return {
        ok: false,
        error: `subscribe: cluster: unknown cluster "${cluster}" (clusters: ${[...this.clusters.keys()].join(', ')})`,
      };
    const scope = await this.scope(socket, conn, kind);
    if (scope.kind === 'denied') return { ok: false, error: scope.message, forbidden: true };
    if (!socket.connected) return { ok: false, error: 'disconnected' };
    // join first: the next flush is a timer callback, so nothing can fall between the
    // catch-up sent below and the deltas the room gets from now on
    if (scope.kind === 'all') {
      void socket.join([r, healthRoom(cluster)]);
      this.limited.get(r)?.delete(socket.id);
    } else {
      void socket.join(healthRoom(cluster));
      void socket.leave(r);
      let m = this.limited.get(r);
      if (!m) this.limited.set(r, (m = new Map()));
      m.set(socket.id, { socket, room: r, cluster, kind, scope });
    }
    this.behind.get(r)?.delete(socket.id);
    const missed =
      resumeFrom === undefined || scope.kind !== 'all' ? undefined : feed.since(resumeFrom, epoch);
    if (missed) for (const d of missed) socket.emit(SocketEvents.delta, d);
    else this.sendSnapshot(socket, filterSnapshot<Item>(scope, feed.snapshot() as Snapshot<Item>));
    socket.emit(SocketEvents.health, conn.health());
    return { ok: true, seq: feed.seq, resumed: missed !== undefined, scope: scope.kind };
  }

  /** Access answers expire: re-ask for limited sockets and resend a snapshot when their view changed. */
  private async rescope() {
    for (const [r, m] of this.limited) {
      const feed = this.feeds.get(r);
      for (const l of [...m.values()]) {
        const conn = this.clusters.get(l.cluster);
        if (!feed || !conn) continue;
        const next = await this.scope(l.socket, conn, l.kind);
        if (sameScope(next, l.scope)) continue;
        if (next.kind === 'all') {
          m.delete(l.socket.id);
          void l.socket.join(r);
        } else l.scope = next;
        if (next.kind === 'denied') {
          m.delete(l.socket.id);
          l.socket.emit('subscribe-error', next.message);
          continue;
        }
        this.sendSnapshot(l.socket, filterSnapshot<Item>(next, feed.snapshot() as Snapshot<Item>));
      }
    }
  }

  /** A snapshot for one socket; what it puts in the socket's queue does not count as falling behind. */
  private sendSnapshot(socket: Socket, snapshot: Snapshot<Item>) {
    socket.emit(SocketEvents.snapshot, snapshot);
    this.backlog.snapshotSent(socket.id, this.queued(socket));
  }

  private tick() {
    for (const [r, feed] of this.feeds) {
      const delta = feed.flush();
      if (delta)
        for (const l of this.limited.get(r)?.values() ?? [])
          l.socket.emit(SocketEvents.delta, filterDelta<Item>(l.scope, delta as Delta<Item>));
      const members = this.io.sockets.adapter.rooms.get(r);
      if (!members?.size) continue;
      this.deliver(r, feed, members, delta);
    }
  }

  private deliver(r: string, feed: Feed, members: Set<string>, delta: Delta<Item> | undefined) {
    let behind = this.behind.get(r);
    const limit = this.opts.maxQueuedPackets ?? 64;
    const caughtUp: string[] = [];
    for (const id of members) {
      const socket = this.io.sockets.sockets.get(id);
      if (!socket) continue;
      const slow = this.backlog.slow(id, this.queued(socket), limit);
      if (slow && delta) {
        if (!behind) this.behind.set(r, (behind = new Set()));
        behind.add(id);
      } else if (!slow && behind?.delete(id)) {
        // it drained: the snapshot carries everything, this tick's delta included
        this.sendSnapshot(socket, feed.snapshot());
        caughtUp.push(id);
      }
    }
    // broadcast encodes the delta once for every socket that is keeping up
    const except = [...(behind ?? []), ...caughtUp];
    if (delta) this.io.to(r).except(except).emit(SocketEvents.delta, delta);
  }
}
