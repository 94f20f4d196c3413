// The console's one live channel (lib/console/live.ts): one `live:watch` / `live:unwatch` handler
// for every topic, and a Feed per topic that each page's server side marks when something it
// shows may have changed. A Feed checks who may join (a known cluster; a topic with keys may
// narrow a person to the namespaces they may list), coalesces marks per cluster, numbers its
// signals per cluster so a page can tell it missed one, and sends each watcher its signal — the
// keys filtered to its namespaces, and sent even when empty so the numbering stays unbroken.
// What changes a topic lives with the topic (server/realtime/fencing.ts, server/volumes/feed.ts…).
import { z } from 'zod';
import {
  type LiveAck,
  type LiveChanged,
  LiveEvents,
  type LiveWatch,
  TOPICS,
  type Topic,
  topicRoom,
} from '../../lib/console/live.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { Scope } from './scope.js';
import type { LiveServer, LiveSocket } from './sockets.js';

const liveWatch = z.object({
  topic: z.enum(TOPICS, { error: `one of ${TOPICS.join(', ')}` }),
  cluster: z.string().min(1, 'cluster is required').max(253),
});

export interface FeedOptions {
  topic: Topic;
  /** the clusters a person may watch it of */
  clusters: Iterable<ClusterId>;
  /** marks within this window go out as one signal */
  coalesceMs?: number;
  /**
   * For topics whose signals name keys ("namespace/name"): what of the cluster this socket's
   * person may see. Without it every signed-in socket may watch (the signal carries no data).
   */
  scope?: (socket: LiveSocket, cluster: ClusterId) => Promise<Scope>;
}

const issuesOf = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');

/** One topic's watchers and signals. Made by LiveChannel.feed. */
export class Feed {
  readonly topic: Topic;
  private readonly clusters: Set<ClusterId>;
  private readonly coalesceMs: number;
  /** per cluster: the number of the last signal sent */
  private readonly seqs = new Map<ClusterId, number>();
  /** per cluster: the keys marked since the last signal ('all' when a mark named none) */
  private readonly dirty = new Map<ClusterId, Set<string> | 'all'>();
  /** per cluster: sockets that may see some namespaces only, by socket id */
  private readonly limited = new Map<
    ClusterId,
    Map<string, { socket: LiveSocket; namespaces: Set<string> }>
  >();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly io: LiveServer,
    private readonly opts: FeedOptions,
  ) {
    this.topic = opts.topic;
    this.clusters = new Set(opts.clusters);
    this.coalesceMs = opts.coalesceMs ?? 250;
  }

  /**
   * Something the topic's pages show may have changed in this cluster; `key` names it for pages
   * that refetch by key.
   */
  mark(cluster: ClusterId, key?: string) {
    if (this.stopped || !this.clusters.has(cluster)) return;
    const d = this.dirty.get(cluster);
    if (key === undefined) this.dirty.set(cluster, 'all');
    else if (d === undefined) this.dirty.set(cluster, new Set([key]));
    else if (d !== 'all') d.add(key);
    this.timer ??= setTimeout(() => this.flush(), this.coalesceMs);
  }

  /** The number the next signal of this cluster follows (starts at the clock: see RoomFeed). */
  private seqOf(cluster: ClusterId): number {
    let s = this.seqs.get(cluster);
    if (s === undefined) this.seqs.set(cluster, (s = Date.now()));
    return s;
  }

  private flush() {
    this.timer = undefined;
    for (const [cluster, d] of this.dirty) {
      const fromSeq = this.seqOf(cluster);
      const seq = fromSeq + 1;
      this.seqs.set(cluster, seq);
      const keys = d === 'all' ? undefined : [...d];
      const signal: LiveChanged = { topic: this.topic, cluster, fromSeq, seq, ...(keys ? { keys } : {}) };
      this.io.to(topicRoom(this.topic, cluster)).emit(LiveEvents.changed, signal);
      for (const l of this.limited.get(cluster)?.values() ?? []) {
        const mine = (keys ?? []).filter((k) => l.namespaces.has(k.slice(0, k.indexOf('/'))));
        l.socket.emit(LiveEvents.changed, { ...signal, keys: mine });
      }
    }
    this.dirty.clear();
  }

  /** Let a socket watch a cluster's signals, or say why not. */
  async join(socket: LiveSocket, cluster: ClusterId): Promise<LiveAck> {
    if (!this.clusters.has(cluster)) return { ok: false, error: `cluster: unknown cluster "${cluster}"` };
    const scope: Scope = this.opts.scope ? await this.opts.scope(socket, cluster) : { kind: 'all' };
    // a watch again replaces the last one: rights that narrowed, widened or went away since
    // leave no earlier membership behind
    this.leave(socket, cluster);
    if (scope.kind === 'denied') return { ok: false, error: scope.message };
    if (scope.kind === 'all') await socket.join(topicRoom(this.topic, cluster));
    else {
      const m = this.limited.get(cluster) ?? new Map();
      this.limited.set(cluster, m.set(socket.id, { socket, namespaces: scope.namespaces }));
    }
    // in the same turn as the join: every later signal follows this number
    return { ok: true, seq: this.seqOf(cluster) };
  }

  leave(socket: LiveSocket, cluster: ClusterId) {
    void socket.leave(topicRoom(this.topic, cluster));
    this.limited.get(cluster)?.delete(socket.id);
  }

  /** The socket is gone (socket.io leaves its rooms by itself). */
  forget(socketId: string) {
    for (const m of this.limited.values()) m.delete(socketId);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

/** The one handler of `live:*` on a console's socket.io server, and its feeds. */
export class LiveChannel {
  private readonly feeds = new Map<Topic, Feed>();

  constructor(private readonly io: LiveServer) {
    io.on('connection', (socket) => this.connected(socket));
  }

  /** The feed of a topic (one per topic). */
  feed(opts: FeedOptions): Feed {
    if (this.feeds.has(opts.topic)) throw new Error(`a live feed for "${opts.topic}" exists already`);
    const f = new Feed(this.io, opts);
    this.feeds.set(opts.topic, f);
    return f;
  }

  private connected(socket: LiveSocket) {
    socket.on(LiveEvents.watch, (raw: unknown, ack?: unknown) => {
      const reply = typeof ack === 'function' ? (ack as (a: LiveAck) => void) : () => undefined;
      void this.watch(socket, raw).then(reply, (e: unknown) =>
        reply({ ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
    });
    socket.on(LiveEvents.unwatch, (raw: unknown) => {
      const req = liveWatch.safeParse(raw);
      if (req.success) this.feeds.get(req.data.topic)?.leave(socket, req.data.cluster);
    });
    socket.on('disconnect', () => {
      for (const f of this.feeds.values()) f.forget(socket.id);
    });
  }

  private async watch(socket: LiveSocket, raw: unknown): Promise<LiveAck> {
    const req = liveWatch.safeParse(raw);
    if (!req.success) return { ok: false, error: issuesOf(req.error) };
    const { topic, cluster }: LiveWatch = req.data;
    const feed = this.feeds.get(topic);
    if (!feed) return { ok: false, error: `topic: this server has no ${topic} feed` };
    return feed.join(socket, cluster);
  }

  stop() {
    for (const f of this.feeds.values()) f.stop();
  }
}
