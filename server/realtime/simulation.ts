// Live ground truth for the embedded cluster over socket.io: the ghosts (processes running
// where the API cannot see them), recomputed at most every 250 ms while anyone watches, and
// each pod's kubelet termination steps as they happen, so the pod page needs no polling.
// Ground truth names pods in every namespace: watching the ghosts needs list pods at the cluster
// scope, a pod's termination steps need get on that pod (asked of the cluster, as for any room).
import type { LiveServer as Server, LiveSocket as Socket } from './sockets.js';
import { z } from 'zod';
import { findGhosts, type Ghost } from '../../lib/console/ghosts.js';
import {
  type ClusterId,
  type GhostsMessage,
  ghostsRoom,
  SimEvents,
  type TerminationStepMessage,
  terminationRoom,
} from '../../lib/console/protocol.js';
import type { AccessReviews } from '../auth/access.js';
import type { ClusterConnection } from '../kube/connection.js';
import { GroundTruthMirror } from '../kube/groundTruth.js';
import { mayJoin } from './scope.js';

const MAX_GHOSTS = 500;
/**
 * A page watches one pod's termination; a socket may watch a few at once, no more: each is a room
 * named by the client, and a pod it may not see yet (not in the cache) is allowed to whoever may
 * list every pod, so without a bound one socket could join rooms until the server runs out of memory.
 */
export const MAX_WATCHED_TERMINATIONS = 16;
const watchGhosts = z.object({ cluster: z.string().min(1, 'cluster is required') });
const watchTermination = watchGhosts.extend({
  podUid: z.string().min(1, 'podUid is required').max(128, 'podUid is longer than a pod uid'),
});
type Ack = (reply: { ok: true } | { ok: false; error: string }) => void;

interface Sim {
  conn: ClusterConnection;
  mirror: GroundTruthMirror;
  dirty: boolean;
  lastSent?: string;
}

function ghostsOf(sim: Sim): GhostsMessage {
  const ghosts: Ghost[] = findGhosts(sim.mirror.processes(), {
    podByUid: (uid) => sim.conn.cache.podByUid(uid),
    podByName: (namespace, name) => sim.conn.cache.pod(namespace, name),
    nodeState: (name) => sim.conn.cache.node(name)?.ready,
  });
  return {
    cluster: sim.conn.id,
    synced: sim.mirror.synced,
    processes: sim.mirror.size,
    ghosts: ghosts.slice(0, MAX_GHOSTS),
    omitted: Math.max(0, ghosts.length - MAX_GHOSTS),
  };
}

export class SimulationHub {
  private readonly sims = new Map<ClusterId, Sim>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly io: Server,
    clusters: Iterable<ClusterConnection>,
    private readonly access: AccessReviews,
    intervalMs = 250,
  ) {
    for (const conn of clusters) if (conn.spec.infra) this.add(conn);
    io.on('connection', (socket) => this.connected(socket));
    this.timer = setInterval(() => this.tick(), intervalMs);
  }

  private add(conn: ClusterConnection) {
    const sim: Sim = { conn, mirror: new GroundTruthMirror(conn.spec.infra!), dirty: true };
    sim.mirror.on('changed', () => (sim.dirty = true));
    sim.mirror.on('error', () => undefined); // reconnects by itself; the ghosts message says synced
    sim.mirror.on('step', (s) => {
      const msg: TerminationStepMessage = { cluster: conn.id, ...s };
      this.io.to(terminationRoom(conn.id, s.podUid)).emit(SimEvents.terminationStep, msg);
    });
    conn.cache.onChange(() => (sim.dirty = true));
    sim.mirror.start();
    this.sims.set(conn.id, sim);
  }

  stop() {
    clearInterval(this.timer);
    for (const s of this.sims.values()) s.mirror.stop();
  }

  private watched(room: string) {
    return (this.io.sockets.adapter.rooms.get(room)?.size ?? 0) > 0;
  }

  private tick() {
    for (const sim of this.sims.values()) {
      if (!sim.dirty || !this.watched(ghostsRoom(sim.conn.id))) continue;
      sim.dirty = false;
      const msg = ghostsOf(sim);
      const sig = JSON.stringify([
        msg.synced,
        msg.processes,
        msg.ghosts.map((g) => [g.id, g.reason]),
        msg.omitted,
      ]);
      // sent only when something a viewer would see changed
      if (sig === sim.lastSent) continue;
      sim.lastSent = sig;
      this.io.to(ghostsRoom(sim.conn.id)).emit(SimEvents.ghosts, msg);
    }
  }

  private simOf(cluster: string): Sim | undefined {
    return this.sims.get(cluster);
  }

  /**
   * A validated watch request for a cluster with a ground truth, or undefined once the
   * client has been told (through its ack) what was wrong.
   */
  private accept<T extends { cluster: string }>(
    schema: z.ZodType<T>,
    raw: unknown,
    ack: Ack | undefined,
  ): { req: T; sim: Sim } | undefined {
    const refuse = (error: string) => {
      if (typeof ack === 'function') ack({ ok: false, error });
      return undefined;
    };
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      return refuse(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const sim = this.simOf(parsed.data.cluster);
    if (!sim)
      return refuse(`cluster "${parsed.data.cluster}" has no ground truth (not Palisade's embedded cluster)`);
    return { req: parsed.data, sim };
  }

  private connected(socket: Socket) {
    socket.on(SimEvents.watchGhosts, async (raw: unknown, ack?: Ack) => {
      const ok = this.accept(watchGhosts, raw, ack);
      if (!ok) return;
      const may = await mayJoin(this.access, socket, ok.sim.conn.id, { verb: 'list', resource: 'pods' });
      if (!may.ok) return void (typeof ack === 'function' && ack(may));
      void socket.join(ghostsRoom(ok.sim.conn.id));
      socket.emit(SimEvents.ghosts, ghostsOf(ok.sim));
      if (typeof ack === 'function') ack({ ok: true });
    });
    socket.on(SimEvents.unwatchGhosts, (raw: unknown) => {
      const req = watchGhosts.safeParse(raw);
      if (req.success) void socket.leave(ghostsRoom(req.data.cluster));
    });
    socket.on(SimEvents.watchTermination, async (raw: unknown, ack?: Ack) => {
      const ok = this.accept(watchTermination, raw, ack);
      if (!ok) return;
      const pod = ok.sim.conn.cache.podByUid(ok.req.podUid);
      const may = await mayJoin(
        this.access,
        socket,
        ok.sim.conn.id,
        pod
          ? { verb: 'get', resource: 'pods', namespace: pod.namespace, name: pod.name }
          : { verb: 'list', resource: 'pods' },
      );
      if (!may.ok) return void (typeof ack === 'function' && ack(may));
      const r = terminationRoom(ok.req.cluster, ok.req.podUid);
      const watching = [...socket.rooms].filter((x) => x.startsWith(terminationRoom(ok.req.cluster, '')));
      if (!socket.rooms.has(r) && watching.length >= MAX_WATCHED_TERMINATIONS) {
        const error = `at most ${MAX_WATCHED_TERMINATIONS} pods' terminations are watched at once: unwatch one first`;
        return void (typeof ack === 'function' && ack({ ok: false, error }));
      }
      void socket.join(r);
      if (typeof ack === 'function') ack({ ok: true });
    });
    socket.on(SimEvents.unwatchTermination, (raw: unknown) => {
      const req = watchTermination.safeParse(raw);
      if (req.success) void socket.leave(terminationRoom(req.data.cluster, req.data.podUid));
    });
  }
}
