// Where each request goes once the one request gate (server/auth) admitted it: health, sign-in,
// socket.io (only the credential that opened an engine.io session may use it), /metrics, tRPC,
// the instance-ID endpoint, and the Next.js UI for everything else. WebSocket upgrades pass the
// same gate and go to socket.io only.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as EngineServer } from 'engine.io';
import type { Admitted, ConsoleAuth } from '../auth/service.js';
import { sendJson } from '../auth/http.js';
import { authRoute, type SignInOptions } from '../auth/routes.js';
import { EngineOwners } from '../auth/sockets.js';
import type { Logger } from '../log.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

export interface Routes {
  auth: ConsoleAuth;
  signIn: SignInOptions;
  /** socket.io's engine: the gate sees every handshake and upgrade before it does */
  engine: EngineServer;
  health: Handler;
  metrics: (a: Admitted, res: http.ServerResponse) => unknown;
  trpc: Handler;
  instanceIds: Handler;
  ui: Handler;
  log: Logger;
}

const FORBIDDEN_UPGRADE = 'HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/** The console's request and upgrade listeners, each behind the gate. */
export function consoleRouter(r: Routes) {
  const { auth, engine } = r;
  // every engine.io session stays with the credential that opened it
  const owners = new EngineOwners(engine);
  const notYours = (req: http.IncomingMessage, a: Admitted) => {
    auth.metrics.refused.inc({ reason: 'socket-not-yours' });
    auth.log.warn(
      { client: a.client, path: req.url?.split('?')[0] },
      'a socket.io request named a session another credential opened: refused',
    );
  };
  const route = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const a = await auth.admit(req, res);
    if (!a) return;
    switch (a.route) {
      case 'health':
        return r.health(req, res);
      case 'auth':
        return authRoute(auth, r.signIn, req, res, a);
      case 'socket':
        if (owners.foreign(req, a)) {
          notYours(req, a);
          return sendJson(res, 403, {
            error: 'this socket.io session is not yours',
            code: 'socket_not_yours',
          });
        }
        return engine.handleRequest(req, res);
      case 'metrics':
        return r.metrics(a, res);
      case 'trpc':
        // a chunked body cut off at the limit: the rest is not read, the connection goes
        res.once('finish', () => res.statusCode === 413 && req.destroy());
        return r.trpc(req, res);
      case 'instance-ids':
        if (await auth.limitPodTokens(req, res, a)) return;
        return r.instanceIds(req, res);
      default:
        // Next.js stamps its scripts with the nonce it finds in the request's own CSP header
        req.headers['content-security-policy'] = res.getHeader('content-security-policy') as string;
        return r.ui(req, res);
    }
  };
  return {
    request(req: http.IncomingMessage, res: http.ServerResponse) {
      void route(req, res).catch((e) => {
        // the path only: a query may carry a secret (the one-time link's token, OIDC's code)
        r.log.error({ method: req.method, path: req.url?.split('?')[0], err: e }, 'request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-length': '0' }).end();
      });
    },
    upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
      void auth.admitUpgrade(req, socket).then((a) => {
        if (!a) return;
        if (a.route !== 'socket') return void socket.destroy();
        if (owners.foreign(req, a)) {
          notYours(req, a);
          return void socket.end(FORBIDDEN_UPGRADE);
        }
        engine.handleUpgrade(req, socket, head);
      });
    },
  };
}
