// socket.io connections belong to the identity the gate admitted their handshake with. A
// connection without one is refused; a session that ends (sign-out, sign-out everywhere, a
// timeout, a failed identity-provider refresh) closes its connections at once, after telling
// the page why, so no live data outlives the session. Each engine.io session (its `sid`) stays
// bound to the credential that opened it: a polling request or an upgrade that names the sid
// with any other credential is refused, so nobody reads another person's stream (or writes into
// it) by presenting a credential of their own beside someone else's sid.
import type http from 'node:http';
import type { Server as EngineServer, Socket as EngineSocket } from 'engine.io';
import type { LiveServer as Server, LiveSocket as Socket } from '../realtime/sockets.js';
import type { Identity } from './identity.js';
import { credentialKey } from './kubeAs.js';
import { type Admitted, admittedOf, type ConsoleAuth } from './service.js';

export const SESSION_ENDED = 'session:ended' as const;

export function identityOf(socket: Socket): Identity | undefined {
  return socket.data.identity;
}

export function bindSockets(io: Server, auth: ConsoleAuth) {
  const bySession = new Map<string, Set<Socket>>();
  io.use((socket, next) => {
    const identity = admittedOf(socket.request)?.identity;
    if (!identity) return next(new Error('unauthenticated: sign in first'));
    socket.data.identity = identity;
    next();
  });
  io.on('connection', (socket) => {
    const id = identityOf(socket)?.sessionKey;
    if (!id) return;
    let set = bySession.get(id);
    if (!set) bySession.set(id, (set = new Set()));
    set.add(socket);
    auth.sessions.attach(id);
    socket.on('disconnect', () => {
      set.delete(socket);
      if (set.size === 0) bySession.delete(id);
      auth.sessions.detach(id);
    });
  });
  auth.sessions.onEnd((s, why) => {
    for (const socket of bySession.get(s.sessionKey) ?? []) {
      socket.emit(SESSION_ENDED, { why });
      socket.disconnect(true);
    }
    bySession.delete(s.sessionKey);
  });
}

/** Whom an admitted request acts for: its session, else its credential (never the token itself). */
function ownerOf(a: Admitted | undefined): string | undefined {
  if (a?.session) return `session:${a.session.sessionKey}`;
  return a?.identity ? `credential:${credentialKey(a.identity.credential)}` : undefined;
}

/** Which credential opened each engine.io session. */
export class EngineOwners {
  private readonly owners = new Map<string, string>();

  constructor(engine: EngineServer) {
    engine.on('connection', (s: EngineSocket) => {
      const owner = ownerOf(admittedOf(s.request));
      // the sid the client names in every later request (private in engine.io's typings only)
      const sid = (s as unknown as { id: string }).id;
      if (!owner) return;
      this.owners.set(sid, owner);
      s.once('close', () => this.owners.delete(sid));
    });
  }

  /** Whether this admitted request names an engine.io session another credential opened. */
  foreign(req: http.IncomingMessage, a: Admitted): boolean {
    const sid = new URL(req.url ?? '/', 'http://x').searchParams.get('sid');
    if (!sid) return false;
    const owner = this.owners.get(sid);
    return owner !== undefined && owner !== ownerOf(a);
  }
}
