// Pushes the audit to browsers: when a cluster's event informer sees one of the console's own
// Events (a guarded action or a simulated fault, written with source palisade-console), a
// coalesced "audit:changed" {cluster} goes to the audit room, and the Audit page refetches
// actions.audit (which filters to what the person may list). Nothing polls.
import type { Server as SocketServer } from 'socket.io';
import { CONSOLE_COMPONENT } from '../../lib/console/actionEvents.js';
import type { EventView } from '../../lib/console/views.js';
import type { ClusterConnection } from '../kube/connection.js';

export const AUDIT_ROOM = 'audit';
const COALESCE_MS = 250;

export class AuditFeed {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly io: SocketServer,
    clusters: Iterable<ClusterConnection>,
  ) {
    io.on('connection', (socket) => {
      socket.on('audit:subscribe', () => void socket.join(AUDIT_ROOM));
      socket.on('audit:unsubscribe', () => void socket.leave(AUDIT_ROOM));
    });
    for (const conn of clusters) {
      // only what may be a sealed record of Palisade's (the audit query checks the seal)
      const mark = (e: EventView) => e.source === CONSOLE_COMPONENT && !!e.seal && this.mark(conn.id);
      conn.informers.events.on({ add: mark, update: mark });
    }
  }

  /** The audit of this cluster changed (the history recorded a fence step). */
  recorded(cluster: string) {
    this.mark(cluster);
  }

  private mark(cluster: string) {
    this.changed.add(cluster);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const c of this.changed) this.io.to(AUDIT_ROOM).emit('audit:changed', { cluster: c });
      this.changed.clear();
    }, COALESCE_MS);
  }

  stop() {
    clearTimeout(this.timer);
  }
}
