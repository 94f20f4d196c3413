// What the browser's live socket does when it loses its server, and what it asks for when it is
// back. Replicas behind one address make "back" mean "on another replica" as often as not: the
// session is shared, but each replica numbers its feeds on its own, so a resume names the
// numbering (epoch) it counts from and another replica answers with a snapshot.
import type { Kind, SubscribeRequest } from '../protocol.js';

export type AfterDisconnect = 'automatic' | 'reconnect' | 'stay';

/**
 * socket.io reconnects by itself after a lost transport (a replica killed, a network cut), but
 * not when the server disconnected the socket on purpose — which every replica does to all its
 * sockets when it stops (a rolling update, a scale-down). A session that ended says so first
 * (`session:ended`, and the page goes to sign-in), so the server's disconnect is a stop: connect
 * again, through the address, to a replica still running. Our own close stays closed.
 */
export function afterDisconnect(reason: string): AfterDisconnect {
  if (reason === 'io server disconnect') return 'reconnect';
  if (reason === 'io client disconnect') return 'stay';
  return 'automatic';
}

/** a little spread, so the tabs a stopped replica served do not all arrive at the same instant */
export function reconnectDelayMs(random: number): number {
  return 500 + Math.floor(Math.max(0, Math.min(1, random)) * 1000);
}

/** The subscribe sent for a room: resuming from what was applied, if anything, in its numbering. */
export function subscribeRequest(
  cluster: string,
  kind: Kind,
  last: { seq: number; epoch?: string } | undefined,
): SubscribeRequest {
  if (!last) return { cluster, kind };
  return { cluster, kind, resumeFrom: last.seq, ...(last.epoch ? { epoch: last.epoch } : {}) };
}
