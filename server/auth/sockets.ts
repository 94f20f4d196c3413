// socket.io connections belong to the identity the gate admitted their handshake with. A
// connection without one is refused; a session that ends (sign-out, sign-out everywhere, a
// timeout, a failed identity-provider refresh) closes its connections at once, after telling
// the page why, so no live data outlives the session.
import type { Server, Socket } from 'socket.io';
import type { Identity } from './identity.js';
import { admittedOf, type ConsoleAuth } from './service.js';

export const SESSION_ENDED = 'session:ended';

export function identityOf(socket: Socket): Identity | undefined {
  return (socket.data as { identity?: Identity }).identity;
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
