// Pushes the timeline to browsers: when the recorder has written entries for a cluster, a
// coalesced "history:changed" {cluster} goes to the history room, and the Timeline page refetches
// history.timeline (which checks what the person may see). Nothing polls.
import type { Server as SocketServer } from 'socket.io';

export const HISTORY_ROOM = 'history';
const COALESCE_MS = 500;

export class HistoryFeed {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly io: SocketServer) {
    io.on('connection', (socket) => {
      socket.on('history:subscribe', () => void socket.join(HISTORY_ROOM));
      socket.on('history:unsubscribe', () => void socket.leave(HISTORY_ROOM));
    });
  }

  /** The recorder wrote entries for this cluster. */
  recorded(cluster: string) {
    this.changed.add(cluster);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const c of this.changed) this.io.to(HISTORY_ROOM).emit('history:changed', { cluster: c });
      this.changed.clear();
    }, COALESCE_MS);
  }

  stop() {
    clearTimeout(this.timer);
  }
}
