// What the webhook listener does with each request: POST /<path>/<cellID> to the path's Handler
// (handler.ts) with the review's body, once the caller's certificate (judged at the handshake,
// callers.ts) may speak for that cell. Anything else is answered at once, its body unread, and
// its connection closed; a handler that throws is answered 500, which fails closed (the API
// server's failurePolicy decides). While draining, every answer closes its connection.
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../log.js';
import { refusalText } from './callers.js';
import { type Caller, type ClientTrust, callerMaySpeakFor, type RefusalReason } from './clientAuth.js';
import { type Handlers, WEBHOOK_PATHS, type WebhookPath } from './handler.js';

/** the API server's deadline for the review (?timeout=<n>s; default 10 s) */
function timeoutOf(url: URL) {
  const m = /^(\d+)s$/.exec(url.searchParams.get('timeout') ?? '');
  return (m ? Number(m[1]) : 10) * 1000;
}

const notFound = `not found: POST ${WEBHOOK_PATHS.map((p) => `/${p}/<cellID>`).join(', ')}`;

export function reviewRequests(o: {
  handlers: Handlers;
  cells: ReadonlySet<string>;
  trust: ClientTrust;
  /** the caller each accepted connection was established as */
  callers: WeakMap<TLSSocket, Caller>;
  refuse: (peer: string, reason: RefusalReason, detail: string) => void;
  log: Logger;
  draining: () => boolean;
}) {
  const { trust } = o;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const send = (code: number, body: unknown, close = false) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(code, {
        'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
        'content-length': Buffer.byteLength(text),
        ...(close || o.draining() ? { connection: 'close' } : {}),
      });
      // a refused caller's connection goes once the answer is out; its body is never read
      res.end(text, close ? () => req.socket.destroy() : undefined);
    };
    const socket = req.socket as TLSSocket;
    const peer = socket.remoteAddress ?? 'unknown';
    const caller = trust.required ? o.callers.get(socket) : undefined;
    if (trust.required && !caller?.ok) {
      const refusal = caller && !caller.ok ? caller : undefined;
      const reason = refusal?.reason ?? 'no-certificate';
      const detail = refusal?.detail ?? 'no client certificate';
      o.refuse(peer, reason, detail);
      return send(403, refusalText(reason, detail), true);
    }
    const url = new URL(req.url ?? '/', 'https://webhook');
    const m = /^\/([a-z]+)\/([^/]+)$/.exec(url.pathname);
    const path = m && (WEBHOOK_PATHS as readonly string[]).includes(m[1]) ? (m[1] as WebhookPath) : undefined;
    const handler = path && o.handlers[path];
    // answers given before the body is read close the connection: it holds an unread body
    if (req.method !== 'POST' || !m || !handler) return send(404, notFound, true);
    let cellId: string;
    try {
      cellId = decodeURIComponent(m[2]);
    } catch {
      return send(404, 'not found: the cell ID is not valid percent-encoding', true);
    }
    if (!o.cells.has(cellId)) return send(404, `unknown cell "${cellId}"`, true);
    if (trust.required && caller?.ok && !callerMaySpeakFor(caller, trust.cellCas.get(cellId))) {
      const detail = `client certificate "${caller.name}" is not signed by a CA trusted for cell "${cellId}"`;
      o.refuse(peer, 'wrong-cell', detail);
      return send(403, refusalText('wrong-cell', detail), true);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      handler.review(Buffer.concat(chunks).toString('utf8'), cellId, { timeoutMs: timeoutOf(url) }).then(
        ([code, body]) => send(code, body),
        // a handler that throws fails closed: the API server's failurePolicy decides
        (e: unknown) => {
          o.log.error({ path, cell: cellId, err: e }, 'webhook handler failed: answered 500');
          send(500, `server internal error: ${e instanceof Error ? e.message : String(e)}`);
        },
      );
    });
  };
}
