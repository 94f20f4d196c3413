// Pushes deletion protection to browsers: on any protector change, decision or history
// point, a coalesced "protection:changed" (at most every 250 ms) naming the protectors
// that changed, so pages refetch just those over tRPC. Nothing polls. A person who may list
// PodProtectors in some namespaces only hears of those (the keys name them).
import type { Server as SocketServer, Socket } from 'socket.io';
import type { AccessReviews } from '../auth/access.js';
import { identityOf } from '../auth/sockets.js';
import type { ProtectionService } from '../protection/service.js';
import { namespaceScope, type Scope } from './scope.js';

export const PROTECTION_ROOM = 'protection';
const COALESCE_MS = 250;

export class ProtectionFeed {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly off: () => void;
  /** sockets that may see some namespaces' protectors only */
  private readonly limited = new Map<string, { socket: Socket; namespaces: Set<string> }>();

  constructor(
    private readonly io: SocketServer,
    private readonly svc: ProtectionService,
    private readonly access: AccessReviews,
  ) {
    io.on('connection', (socket) => {
      socket.on('protection:subscribe', () => void this.subscribe(socket));
      socket.on('protection:unsubscribe', () => {
        void socket.leave(PROTECTION_ROOM);
        this.limited.delete(socket.id);
      });
      socket.on('disconnect', () => this.limited.delete(socket.id));
    });
    svc.store.onChange((key) => this.mark(key));
    this.off = svc.decisions.onEntry((_kind, key) => this.mark(key));
  }

  private async subscribe(socket: Socket) {
    const identity = identityOf(socket);
    if (!identity) return;
    const scope: Scope = await namespaceScope(
      this.access,
      identity,
      this.svc.core.id,
      { group: 'podseidon.kubewharf.io', resource: 'podprotectors', namespaced: true },
      () => this.svc.store.all().map((e) => e.protector.metadata.namespace ?? ''),
    );
    if (scope.kind === 'all') return void socket.join(PROTECTION_ROOM);
    if (scope.kind === 'namespaces') this.limited.set(socket.id, { socket, namespaces: scope.namespaces });
  }

  private mark(key: string) {
    this.changed.add(key);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const keys = [...this.changed];
      this.changed.clear();
      this.io.to(PROTECTION_ROOM).emit('protection:changed', { keys });
      for (const l of this.limited.values()) {
        const mine = keys.filter((k) => l.namespaces.has(k.slice(0, k.indexOf('/'))));
        if (mine.length) l.socket.emit('protection:changed', { keys: mine });
      }
    }, COALESCE_MS);
  }

  stop() {
    clearTimeout(this.timer);
    this.off();
  }
}
