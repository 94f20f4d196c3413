// Live ground truth for the embedded cluster over socket.io: the ghosts (processes running
// where the API cannot see them), recomputed at most every 250 ms while anyone watches, and
// each pod's kubelet termination steps as they happen, so the pod page needs no polling.
import type { Server, Socket } from 'socket.io';
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
import type { ClusterConnection } from '../kube/connection.js';
import { GroundTruthMirror } from '../kube/groundTruth.js';

const MAX_GHOSTS = 500;
const watchGhosts = z.object({ cluster: z.string().min(1, 'cluster is required') });
const watchTermination = watchGhosts.extend({ podUid: z.string().min(1, 'podUid is required') });
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

  private connected(socket: Socket) {
    const refuse = (ack: Ack | undefined, error: string) =>
      typeof ack === 'function' ? ack({ ok: false, error }) : undefined;
    socket.on(SimEvents.watchGhosts, (raw: unknown, ack?: Ack) => {
      const req = watchGhosts.safeParse(raw);
      if (!req.success)
        return refuse(ack, req.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      const sim = this.simOf(req.data.cluster);
      if (!sim)
        return refuse(
          ack,
          `cluster "${req.data.cluster}" has no ground truth (not Palisade's embedded cluster)`,
        );
      void socket.join(ghostsRoom(sim.conn.id));
      socket.emit(SimEvents.ghosts, ghostsOf(sim));
      ack?.({ ok: true });
    });
    socket.on(SimEvents.unwatchGhosts, (raw: unknown) => {
      const req = watchGhosts.safeParse(raw);
      if (req.success) void socket.leave(ghostsRoom(req.data.cluster));
    });
    socket.on(SimEvents.watchTermination, (raw: unknown, ack?: Ack) => {
      const req = watchTermination.safeParse(raw);
      if (!req.success)
        return refuse(ack, req.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      if (!this.simOf(req.data.cluster))
        return refuse(
          ack,
          `cluster "${req.data.cluster}" has no ground truth (not Palisade's embedded cluster)`,
        );
      void socket.join(terminationRoom(req.data.cluster, req.data.podUid));
      ack?.({ ok: true });
    });
    socket.on(SimEvents.unwatchTermination, (raw: unknown) => {
      const req = watchTermination.safeParse(raw);
      if (req.success) void socket.leave(terminationRoom(req.data.cluster, req.data.podUid));
    });
  }
}
