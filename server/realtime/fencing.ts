// Pushes fencing to browsers: on any NodeFence or FencePolicy change (or a node's conditions,
// which move the fences a policy will start), a coalesced
// "fencing:changed" {cluster} (at most every 250 ms) to the fencing room, so pages refetch
// fencing.list over tRPC. Nothing polls.
import type { Server as SocketServer } from 'socket.io';
import type { FencingService } from '../fencing/service.js';

export const FENCING_ROOM = 'fencing';

const conditionStatuses = (n: { conditions: { type: string; status: string }[] }) =>
  n.conditions.map((c) => `${c.type}=${c.status}`).join(',');
const COALESCE_MS = 250;

export class FencingFeed {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly io: SocketServer,
    svc: FencingService,
  ) {
    io.on('connection', (socket) => {
      socket.on('fencing:subscribe', () => void socket.join(FENCING_ROOM));
      socket.on('fencing:unsubscribe', () => void socket.leave(FENCING_ROOM));
    });
    for (const [cluster, c] of svc.controllers) {
      const mark = () => this.mark(cluster);
      for (const inf of [c.informers.fences, c.informers.policies])
        inf.on({ add: mark, update: mark, delete: mark });
      c.onViewChange(mark);
      // a node's conditions changing status moves its upcoming fence ("fenced automatically in N s");
      // heartbeats alone (the same statuses) do not
      c.informers.nodes.on({
        add: mark,
        delete: mark,
        update: (n, old) => {
          if (conditionStatuses(n) !== conditionStatuses(old)) mark();
        },
      });
    }
  }

  private mark(cluster: string) {
    this.changed.add(cluster);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const c of this.changed) this.io.to(FENCING_ROOM).emit('fencing:changed', { cluster: c });
      this.changed.clear();
    }, COALESCE_MS);
  }

  stop() {
    clearTimeout(this.timer);
  }
}
