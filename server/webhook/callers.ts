// The webhook's callers when client certificates are required: every TLS connection is judged
// (node:tls verifies the chain, judgeCaller decides) before its HTTP side sees it. A
// caller with no certificate, or none a trusted CA signed, is answered 403 at once and closed
// with nothing of its request parsed; the others go on, their verdict kept for the request.
import type https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { CALLER_REFUSED } from '../../lib/protection/enforcement.js';
import { type Caller, type ClientTrust, judgeCaller, type RefusalReason } from './clientAuth.js';

/** What a refused caller is told (the API server puts it in its error): the reason and why. */
export const refusalText = (reason: RefusalReason, detail: string) =>
  `${CALLER_REFUSED} (${reason}): ${detail}`;

/**
 * A 403 written on a connection whose request is never parsed: what the caller sent is read
 * and dropped (closing with unread data would reset the connection and lose the answer), and
 * the connection goes once the answer is out or after a second.
 */
export function answerUnheard(socket: TLSSocket, text: string) {
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/**
 * Judge each TLS connection of `server` before HTTP sees it: refused ones are answered and
 * closed here (`refuse` counts and logs them), the others' verdicts go to `callers`.
 */
export function guardCallers(
  server: https.Server,
  trust: Extract<ClientTrust, { required: true }>,
  callers: WeakMap<TLSSocket, Caller>,
  refuse: (peer: string, reason: RefusalReason | 'tls-handshake', detail: string) => void,
) {
  // https.Server hands every TLS connection to its HTTP side from one 'secureConnection'
  // listener; the refused ones must never reach it, so it is called from ours instead
  const toHttp = server.listeners('secureConnection');
  if (toHttp.length !== 1)
    throw new Error(`webhook: expected one HTTP connection listener, found ${toHttp.length}`);
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket: TLSSocket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const caller = judgeCaller(
      socket.authorized,
      socket.authorizationError ? String(socket.authorizationError) : undefined,
      socket.getPeerCertificate(true),
      trust.allowedNames,
    );
    if (!caller.ok && caller.status === undefined) {
      // no certificate, or none a trusted CA signed: answered at once and closed, nothing of
      // the request parsed — the answer is what the API server's error (and the leader's
      // self-probe) will say
      refuse(peer, caller.reason, caller.detail);
      answerUnheard(socket, refusalText(caller.reason, caller.detail));
      return;
    }
    callers.set(socket, caller);
    (toHttp[0] as (s: TLSSocket) => void).call(server, socket);
  });
  server.on('tlsClientError', (e: Error & { code?: string }, socket: TLSSocket) =>
    refuse(socket.remoteAddress ?? 'unknown', 'tls-handshake', e.code ?? e.message),
  );
}
