// How fresh the incident view's data is. A watch that is down (relisting after an error) lags
// by how long it has been down; the node heartbeat watch (Leases) lags by how far its silence
// goes beyond the heartbeat interval while some node is up to send one. The data is stale when
// any lag passes 10 s: the page then says so in a banner rather than show old counts as now.
import type { Freshness, StaleReason, WatchActivity } from './types.js';

export const STALE_AFTER_MS = 10_000;
export const HEARTBEAT_WATCH = 'leases';

export interface FreshnessInput {
  now: number;
  watches: WatchActivity[];
  /** some node is Ready: the heartbeat watch should be hearing renewals */
  heartbeatsExpected: boolean;
  heartbeatIntervalMs?: number;
}

function reasonsOf(i: FreshnessInput): StaleReason[] {
  const out: StaleReason[] = [];
  for (const w of i.watches) {
    if (w.synced) continue;
    if (w.downSince === undefined) out.push({ code: 'never-synced', kind: w.kind });
    else out.push({ code: 'watch-down', kind: w.kind, forMs: Math.max(0, i.now - w.downSince) });
  }
  const hb = i.watches.find((w) => w.kind === HEARTBEAT_WATCH);
  if (i.heartbeatsExpected && hb?.synced && hb.lastEventAt !== undefined) {
    const late = i.now - hb.lastEventAt - (i.heartbeatIntervalMs ?? 10_000);
    if (late > 0) out.push({ code: 'heartbeats-silent', forMs: late });
  }
  return out;
}

export function freshnessOf(i: FreshnessInput): Freshness {
  const reasons = reasonsOf(i);
  const newest = Math.max(0, ...i.watches.map((w) => w.lastEventAt ?? 0));
  const lagMs = Math.max(
    0,
    ...reasons.map((r) => (r.code === 'never-synced' ? Number.POSITIVE_INFINITY : r.forMs)),
  );
  return {
    ...(newest ? { ageMs: Math.max(0, i.now - newest) } : {}),
    lagMs: Number.isFinite(lagMs) ? lagMs : STALE_AFTER_MS + 1,
    stale: lagMs > STALE_AFTER_MS,
    reasons: reasons.filter((r) => r.code === 'never-synced' || r.forMs > 0),
  };
}
