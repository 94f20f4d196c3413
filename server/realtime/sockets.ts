// The socket.io server and socket types, typed by the one event map both ends share
// (lib/console/live.ts): an event name or payload that is not in it does not compile.
import type { DefaultEventsMap, Server, Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../lib/console/live.js';
import type { Identity } from '../auth/identity.js';

/** What the request gate put on a socket: who it belongs to. */
export interface SocketData {
  identity?: Identity;
}

export type LiveServer = Server<ClientToServerEvents, ServerToClientEvents, DefaultEventsMap, SocketData>;
export type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, DefaultEventsMap, SocketData>;
