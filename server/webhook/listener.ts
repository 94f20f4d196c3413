// The one HTTPS listener of Palisade's webhooks: POST /<path>/<cellID>, each path a Handler
// (handler.ts): /admission (pods DELETE and pods/eviction CREATE, server/protection/review.ts),
// /fences (NodeFence writes that approve or cancel a fence, server/fencing/approvalWebhook.ts),
// /fencepolicies (FencePolicy writes, server/fencing/policyWebhook.ts), /epochs (the leader-epoch
// check of writes to Palisade-owned state, server/leader/epochWebhook.ts). The serving
// certificate comes from a CA generated at start, or from the Secret replicas share
// (servingSecret.ts, server/protection/certs/):
// setServing() swaps it in for new connections (https.Server#setSecureContext) without
// dropping any open one; given none yet, the listener waits for the first before it listens.
//
// Only the API servers are heard (mutual TLS, clientAuth.ts): the listener asks for a
// client certificate and answers a connection without one, or with one no trusted CA signed,
// as soon as the handshake ends with a 403 saying so, before any HTTP is read (the API
// server's error then says why, and the leader's self-probe reads it); a trusted certificate
// whose names are not allowed, or whose CA is not its cell's, gets 403 naming it, the body
// unread. Each refused connection is closed, each refusal counted; each cause (reason, peer
// address, detail) is logged once.
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { newServingPair, type ServingPair } from './servingSecret.js';
import { guardCallers } from './callers.js';
import { reviewRequests } from './requests.js';
export { refusalText } from './callers.js';
import type { Caller, ClientTrust, RefusalReason } from './clientAuth.js';
import { component, type Logger } from '../log.js';
import type { Handlers } from './handler.js';

export type { ServingPair } from './servingSecret.js';

export interface WebhookServer {
  /** https://<host>:<port> (the port is known once it listens) */
  readonly url: string;
  readonly port: number;
  /** the CA bundle of the certificate served now */
  readonly caPem: string;
  /** listening with a certificate (what /readyz asks) */
  readonly listening: boolean;
  /** the certificate served now (undefined: none yet) */
  readonly serving: ServingPair | undefined;
  /** serve this certificate to every new connection (the first one starts the listener) */
  setServing(pair: ServingPair): Promise<void>;
  /** resolves once it listens */
  whenListening(): Promise<void>;
  /**
   * Drain, as a replica behind a shared address must before it stops (SIGTERM): every request
   * is still judged, every answer carries `Connection: close` — the API server then stops using
   * that connection itself, so no request is ever sent on a socket being closed (it does not
   * retry a POST that failed) — and new connections are still taken, because whatever routes
   * to this replica (kube-proxy, a balancer) goes on sending them until its endpoints are gone:
   * until `until` resolves (they are gone) or `maxMs` passed. Then it stops listening and waits
   * up to `closeMs` for the connections still open to finish.
   */
  drain(o: { until?: Promise<unknown>; maxMs: number; closeMs?: number }): Promise<void>;
  /** draining: answers close their connections */
  readonly draining: boolean;
  stop(): Promise<void>;
}

/** How many distinct refusal causes are logged before the rest are only counted. */
const MAX_LOGGED_CAUSES = 1000;

/** Logs each refusal cause once; the count of every refusal is the metric's. */
function refusalLog(log: Logger) {
  const seen = new Set<string>();
  return (peer: string, reason: RefusalReason | 'tls-handshake', detail: string) => {
    const key = `${reason}\n${peer}\n${detail}`;
    if (seen.has(key)) return;
    if (seen.size === MAX_LOGGED_CAUSES) {
      seen.add(key);
      log.warn(
        { max: MAX_LOGGED_CAUSES },
        'too many distinct refused callers: further ones are only counted',
      );
      return;
    }
    if (seen.size > MAX_LOGGED_CAUSES) return;
    seen.add(key);
    log.warn({ peer, reason, detail }, 'refused caller');
  };
}

/** The names the serving certificate must carry: loopback, the listening host, and any more given. */
export function webhookNames(host: string, more: string[] = []): string[] {
  return [...new Set(['localhost', '127.0.0.1', host, ...more])].filter((h) => h !== '0.0.0.0' && h !== '::');
}

export async function startWebhook(opts: {
  /** the judge of each path served (a path without one answers 404) */
  handlers: Handlers;
  /** the cells a path may name */
  cells: ReadonlySet<string>;
  /** a caller was refused (counted by the caller: palisade_webhook_refused_callers_total) */
  onRefused?: (reason: RefusalReason | 'tls-handshake') => void;
  port: number;
  host: string;
  /** who may call: resolveClientTrust()'s answer ({ required: false }: anyone) */
  clientAuth: ClientTrust;
  /** names the serving certificate must carry besides the host */
  hosts?: string[];
  /**
   * the serving CA and key pair shared by replicas (certs/); default: a CA made now; null: none
   * yet (listen once setServing() gives one)
   */
  serving?: ServingPair | null;
  /** where its lines go (component 'webhook'; the root logger by default) */
  logger?: Logger;
}): Promise<WebhookServer> {
  const log = component('webhook', {}, opts.logger);
  const trust = opts.clientAuth;
  const logRefusal = refusalLog(log);
  const refuse = (peer: string, reason: RefusalReason | 'tls-handshake', detail: string) => {
    opts.onRefused?.(reason);
    logRefusal(peer, reason, detail);
  };
  const names = webhookNames(opts.host, opts.hosts);
  let serving: ServingPair | undefined =
    opts.serving === null ? undefined : (opts.serving ?? (await newServingPair(names)));
  let draining = false;
  /** the caller each accepted connection was established as */
  const callers = new WeakMap<TLSSocket, Caller>();

  // what verifies callers' certificates belongs to the secure context too: kept on every swap
  const clientCa = trust.required ? { ca: trust.caPems } : {};
  const server = https.createServer(
    {
      ...(serving ? { cert: serving.certPem, key: serving.keyPem } : {}),
      // a caller that never finishes its handshake does not hold a socket for long
      handshakeTimeout: 10_000,
      // verification is node:tls's against `ca`; the verdict is ours (judgeCaller), so a
      // refusal can be counted and logged with its reason before the socket goes
      ...(trust.required ? { requestCert: true, rejectUnauthorized: false, ca: trust.caPems } : {}),
    },
    reviewRequests({
      handlers: opts.handlers,
      cells: opts.cells,
      trust,
      callers,
      refuse,
      log,
      draining: () => draining,
    }),
  );

  // Idle kept-alive connections are the caller's to close. kube-apiserver's client (Go's
  // transport) drops its idle ones after 90 s and does not retry a POST whose reused connection
  // the server closed under it: with Node's 5 s default, every idle pause of a deletion storm
  // raced the API server's next review, which failed with EOF (seen on the real control plane in
  // server/ha/rollingUpdate.int.test.ts, where a drain lasts longer than 5 s)
  server.keepAliveTimeout = 120_000;

  // every socket, handshaking or not, so stop() does not wait on a half-open one
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  if (trust.required) guardCallers(server, trust, callers, refuse);
  else
    log.warn({ setting: 'protection.webhook.clientAuth.required: false' }, 'the webhook accepts any caller');

  let port = opts.port;
  let listening = false;
  let stopped = false;
  let markListening!: () => void;
  const listened = new Promise<void>((r) => (markListening = r));
  const listen = async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    listening = true;
    markListening();
  };
  let starting: Promise<void> | undefined;
  if (serving) await (starting = listen());
  else log.info('no serving certificate yet: the webhook listens once it has one');
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    get url() {
      return `https://${shownHost}:${port}`;
    },
    get port() {
      return port;
    },
    get caPem() {
      return serving?.caPem ?? '';
    },
    get listening() {
      return listening && serving !== undefined;
    },
    get serving() {
      return serving;
    },
    whenListening: () => listened,
    async setServing(pair: ServingPair) {
      // a bad pair throws here, before it replaces the one served
      server.setSecureContext({ cert: pair.certPem, key: pair.keyPem, ...clientCa });
      serving = pair;
      if (!stopped) await (starting ??= listen());
    },
    get draining() {
      return draining;
    },
    async drain(o: { until?: Promise<unknown>; maxMs: number; closeMs?: number }) {
      draining = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        o.until ?? new Promise(() => undefined),
        new Promise((r) => (timer = setTimeout(r, o.maxMs))),
      ]);
      clearTimeout(timer);
      // net.Server's own close: stop listening but leave open connections alone (http's close()
      // would also close the idle kept-alive ones, racing the API server's next request)
      if (server.listening) net.Server.prototype.close.call(server);
      const deadline = Date.now() + (o.closeMs ?? 2_000);
      while (sockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    },
    async stop() {
      stopped = true;
      if (!server.listening) return;
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}
