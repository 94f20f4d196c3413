// Pushes "volumes:changed" to browsers on a cluster's volumes page when anything the RWO
// attach view reads changes — PVs, PVCs, VolumeAttachments, attach/detach events, pods with
// claims, a node's readiness or taints, and on the embedded cluster its processes and storage
// fences — coalesced (at most every 250 ms), so the page refetches volumes.* over tRPC.
// Nothing polls.
import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { NodeView, PodView } from '../../lib/console/protocol.js';
import type { EventView } from '../../lib/console/views.js';
import { VolumeEvents, type VolumesWatchAck, volumesRoom } from '../../lib/volumes/rwoLive.js';
import type { ClusterConnection } from '../kube/connection.js';
import { InfraStream, type InfraStreamEvent } from '../kube/infraStream.js';

const watchRequest = z.object({ cluster: z.string().min(1, 'cluster is required') });
const VOLUME_EVENT = /Attach|Detach|Mount/;
const TRUTH_EVENTS = new Set(['storage-fenced', 'storage-unfenced', 'power-off', 'meteor']);

/** A node changes the view through its readiness and taints, not through each heartbeat. */
const nodeSignature = (n: NodeView) => `${n.ready}|${n.taints.map((t) => `${t.key}:${t.effect}`).join(',')}`;

function truthChanged(e: InfraStreamEvent): boolean {
  if (TRUTH_EVENTS.has(e.type)) return true;
  const p = e.process as { volumes?: unknown[] } | undefined;
  return (e.type === 'process-started' || e.type === 'process-stopped') && !!p?.volumes?.length;
}

export class VolumesFeed {
  private readonly dirty = new Set<string>();
  private readonly streams: InfraStream[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly io: Server,
    private readonly clusters: Map<string, ClusterConnection>,
    private readonly coalesceMs = 250,
  ) {
    for (const conn of clusters.values()) this.follow(conn);
    io.on('connection', (socket) => this.connected(socket));
  }

  private follow(conn: ClusterConnection) {
    const mark = () => this.mark(conn.id);
    const any = { add: mark, update: mark, delete: mark };
    const { persistentVolumes, persistentVolumeClaims, volumeAttachments, events } = conn.informers;
    persistentVolumes.on(any);
    persistentVolumeClaims.on(any);
    volumeAttachments.on(any);
    const volumeEvent = (e: EventView) => VOLUME_EVENT.test(e.reason ?? '') && mark();
    events.on({ add: volumeEvent, update: volumeEvent });
    this.followCache(conn, mark);
    if (!conn.spec.infra) return;
    const stream = new InfraStream(conn.spec.infra);
    stream.on('event', (e) => truthChanged(e) && mark());
    stream.on('connected', mark);
    stream.on('lost', () => undefined); // it reconnects by itself
    stream.start();
    this.streams.push(stream);
  }

  private followCache(conn: ClusterConnection, mark: () => void) {
    const claimPods = new Set<string>();
    const nodes = new Map<string, string>();
    conn.cache.onChange((kind, key, view) => {
      if (kind === 'pods') {
        const had = claimPods.has(key);
        const has = !!(view as PodView | undefined)?.claims.length;
        if (has) claimPods.add(key);
        else claimPods.delete(key);
        if (had || has) mark();
        return;
      }
      const sig = view ? nodeSignature(view as NodeView) : '';
      if (nodes.get(key) === sig) return;
      if (sig) nodes.set(key, sig);
      else nodes.delete(key);
      mark();
    });
  }

  private mark(cluster: string) {
    if (this.stopped) return;
    this.dirty.add(cluster);
    this.timer ??= setTimeout(() => this.flush(), this.coalesceMs);
  }

  private flush() {
    this.timer = undefined;
    for (const cluster of this.dirty)
      this.io.to(volumesRoom(cluster)).emit(VolumeEvents.changed, { cluster });
    this.dirty.clear();
  }

  private connected(socket: Socket) {
    socket.on(VolumeEvents.watch, (raw: unknown, ack?: (r: VolumesWatchAck) => void) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      const req = watchRequest.safeParse(raw);
      if (!req.success)
        return reply({
          ok: false,
          error: req.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        });
      if (!this.clusters.has(req.data.cluster))
        return reply({ ok: false, error: `cluster: unknown cluster "${req.data.cluster}"` });
      void socket.join(volumesRoom(req.data.cluster));
      reply({ ok: true });
    });
    socket.on(VolumeEvents.unwatch, (raw: unknown) => {
      const req = watchRequest.safeParse(raw);
      if (req.success) void socket.leave(volumesRoom(req.data.cluster));
    });
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const s of this.streams) s.stop();
  }
}
