// Pushes "instance-ids:changed" to browsers on a cluster's instance-IDs page when anything it
// shows may have changed — a workload's map, replicas or opt-in, a pod of a namespace holding
// such a workload, and on the embedded cluster an ID taken or given back in the ground truth —
// coalesced (at most every 250 ms), so the page refetches instanceIds.* over tRPC. The signal
// carries no data: what the person may see is decided by the query. Nothing polls.
import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { WorkloadView } from '../../lib/console/views.js';
import { InstanceIdEvents, type InstanceIdsWatchAck, instanceIdsRoom } from '../../lib/instanceIds/live.js';
import type { ClusterConnection } from '../kube/connection.js';
import { InfraStream } from '../kube/infraStream.js';

const watchRequest = z.object({ cluster: z.string().min(1, 'cluster is required') });
const TRUTH_EVENTS = new Set(['instance-id-held', 'instance-id-dropped']);

const tracked = (w: WorkloadView | undefined) =>
  !!w && (w.instanceIds !== undefined || !!w.instanceIdsEnabled);
const signature = (w: WorkloadView | undefined) =>
  tracked(w) ? `${w!.instanceIds}|${w!.instanceIdsEnabled}|${w!.replicas}|${w!.readyReplicas}` : '';

export class InstanceIdsFeed {
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
    /** namespace -> tracked workloads in it (their pods matter) */
    const namespaces = new Map<string, Set<string>>();
    const workload = (next: WorkloadView | undefined, old: WorkloadView | undefined) => {
      const w = next ?? old!;
      const key = `${w.kind}/${w.name}`;
      const set = namespaces.get(w.namespace) ?? new Set<string>();
      if (tracked(next)) set.add(key);
      else set.delete(key);
      if (set.size) namespaces.set(w.namespace, set);
      else namespaces.delete(w.namespace);
      if (signature(next) !== signature(old)) mark();
    };
    for (const inf of [conn.informers.deployments, conn.informers.statefulSets])
      inf.on({
        add: (w) => workload(w, undefined),
        update: (w, old) => workload(w, old),
        delete: (old) => workload(undefined, old),
      });
    conn.cache.onChange((kind, key) => {
      if (kind === 'pods' && namespaces.has(key.slice(0, key.indexOf('/')))) mark();
    });
    if (!conn.spec.infra) return;
    const stream = new InfraStream(conn.spec.infra);
    stream.on('event', (e) => TRUTH_EVENTS.has(e.type) && mark());
    stream.on('connected', mark);
    stream.on('lost', () => undefined); // it reconnects by itself
    stream.start();
    this.streams.push(stream);
  }

  private mark(cluster: string) {
    if (this.stopped) return;
    this.dirty.add(cluster);
    this.timer ??= setTimeout(() => this.flush(), this.coalesceMs);
  }

  private flush() {
    this.timer = undefined;
    for (const cluster of this.dirty)
      this.io.to(instanceIdsRoom(cluster)).emit(InstanceIdEvents.changed, { cluster });
    this.dirty.clear();
  }

  private connected(socket: Socket) {
    socket.on(InstanceIdEvents.watch, (raw: unknown, ack?: (r: InstanceIdsWatchAck) => void) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      const req = watchRequest.safeParse(raw);
      if (!req.success)
        return reply({
          ok: false,
          error: req.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        });
      if (!this.clusters.has(req.data.cluster))
        return reply({ ok: false, error: `cluster: unknown cluster "${req.data.cluster}"` });
      void socket.join(instanceIdsRoom(req.data.cluster));
      reply({ ok: true });
    });
    socket.on(InstanceIdEvents.unwatch, (raw: unknown) => {
      const req = watchRequest.safeParse(raw);
      if (req.success) void socket.leave(instanceIdsRoom(req.data.cluster));
    });
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const s of this.streams) s.stop();
  }
}
