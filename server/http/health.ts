// /healthz and /readyz. Alive while the process serves; ready once every cluster's informers
// have their first lists and the webhook can answer, and no longer from SIGTERM on (the
// endpoints controller takes the replica out while its webhook drains). The leader's warnings
// (the webhook not enforced) ride along on a ready answer: an unready replica would only take
// the webhook further out of the API server's reach.
import type http from 'node:http';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';

export interface HealthSources {
  clusters: Iterable<ClusterConnection>;
  protection?: Pick<ProtectionService, 'notReady' | 'warnings'>;
  /** true from SIGTERM on */
  stopping: () => boolean;
}

/** what stops this replica being ready, and what a ready answer notes */
export function readiness(s: HealthSources): { missing: string[]; notes: string[] } {
  if (s.stopping()) return { missing: ['stopping: the webhook drains'], notes: [] };
  const missing: string[] = [];
  const unsynced = [...s.clusters].filter((c) => !c.isSynced()).map((c) => c.id);
  if (unsynced.length) missing.push(`informers of ${unsynced.join(', ')} have not synced`);
  // a replica whose webhook cannot answer yet takes no admissions from the Service
  if (s.protection) missing.push(...s.protection.notReady());
  return { missing, notes: s.protection?.warnings() ?? [] };
}

export function healthRoute(s: HealthSources) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const { missing, notes } = path === '/readyz' ? readiness(s) : { missing: [], notes: [] };
    const ok = missing.length === 0;
    const text = ok
      ? `ok\n${notes.map((n) => `warning: ${n}\n`).join('')}`
      : `not ready: ${missing.join('; ')}\n`;
    res.writeHead(ok ? 200 : 503, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
}
