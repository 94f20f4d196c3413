// The audit topic of the live channel: when a cluster's event informer sees one of the console's
// own Events (a guarded action or a simulated fault, written with source palisade-console), or the
// history records a fence step, the cluster's watchers are signalled and the Audit page refetches
// actions.audit (which filters to what the person may list). Nothing polls.
import { CONSOLE_COMPONENT } from '../../lib/console/actionEvents.js';
import type { EventView } from '../../lib/console/views.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { LiveChannel } from './live.js';

export function followAudit(channel: LiveChannel, clusters: readonly ClusterConnection[]) {
  const feed = channel.feed({ topic: 'audit', clusters: clusters.map((c) => c.id) });
  for (const conn of clusters) {
    // only what may be a sealed record of Palisade's (the audit query checks the seal)
    const mark = (e: EventView) => e.source === CONSOLE_COMPONENT && !!e.seal && feed.mark(conn.id);
    conn.informers.events.on({ add: mark, update: mark });
  }
  return feed;
}
