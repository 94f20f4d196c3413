// Pushes deletion protection to browsers: on any protector change, decision or history
// point, a coalesced "protection:changed" (at most every 250 ms) naming the protectors
// that changed, so pages refetch just those over tRPC. Nothing polls.
import type { Server as SocketServer } from 'socket.io';
import type { ProtectionService } from '../protection/service.js';

export const PROTECTION_ROOM = 'protection';
const COALESCE_MS = 250;

export class ProtectionFeed {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly off: () => void;

  constructor(
    private readonly io: SocketServer,
    svc: ProtectionService,
  ) {
    io.on('connection', (socket) => {
      socket.on('protection:subscribe', () => void socket.join(PROTECTION_ROOM));
      socket.on('protection:unsubscribe', () => void socket.leave(PROTECTION_ROOM));
    });
    svc.store.onChange((key) => this.mark(key));
    this.off = svc.decisions.onEntry((_kind, key) => this.mark(key));
  }

  private mark(key: string) {
    this.changed.add(key);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const keys = [...this.changed];
      this.changed.clear();
      this.io.to(PROTECTION_ROOM).emit('protection:changed', { keys });
    }, COALESCE_MS);
  }

  stop() {
    clearTimeout(this.timer);
    this.off();
  }
}
