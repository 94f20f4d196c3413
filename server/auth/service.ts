// The console's one request gate and its sign-in routes. Every HTTP request and every
// WebSocket upgrade comes through admit(): security headers, the Host/Origin/content-type/body
// rules (lib/auth/gate.ts), then who is asking (a session cookie or a bearer token checked by
// the clusters, within the rate limits of limits.ts). Nothing else in the server reads a
// request before this has let it through. Failed authentications are logged (who tried, from
// where, why; a token only by the first characters of its hash) and counted in /metrics.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type Credential as GateCredential,
  type GateVerdict,
  judgeRequest,
  type Route,
} from '../../lib/auth/gate.js';
import { clientOf, type TrustedProxies, trustedProxies } from '../../lib/auth/clientAddress.js';
import { findSessionCookie, openCookie, sealCookie } from '../../lib/auth/cookies.js';
import { securityHeaders } from '../../lib/auth/headers.js';
import type { HostRules } from '../../lib/auth/hosts.js';
import { type SessionKeys, sessionKeys } from '../../lib/auth/sealedRecord.js';
import { cookiePort, DEFAULT_SESSION_LIMITS, type SessionLimits } from '../../lib/auth/session.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { ClusterConnection } from '../kube/connection.js';
import { REPLICA_IDENTITY } from '../replica.js';
import { AccessReviews } from './access.js';
import { bearerToken, clearedCookiesFor, cookieSettings, sendJson, type CookieSettings } from './http.js';
import { type Identity, nameOn } from './identity.js';
import { type InstallKeys, processKeys } from './keys.js';
import { type Admit, DEFAULT_LIMITS, type LimitName, type Limits, RateLimits } from './limits.js';
import { SignInLink } from './link.js';
import { type AuthMethod, type AuthMetrics, authMetrics } from './metrics.js';
import { SessionSecrets } from './sessionSecrets.js';
import { type EndReason, type Session, SessionStore } from './sessions.js';
import { SharedSessionStore } from './sharedSessions.js';
import { TokenAuthenticator, tokenFingerprint } from './tokens.js';
import { component, type Logger } from '../log.js';

export interface AuthOptions {
  clusters: Map<ClusterId, ClusterConnection>;
  /** palisade.yaml server.allowedHosts */
  allowedHosts?: string[];
  /** palisade.yaml server.publicURL: the console's address behind an Ingress or proxy */
  publicURL?: string;
  session?: SessionLimits;
  /**
   * Keep sessions in Kubernetes Secrets in this namespace of this cluster (default: the first),
   * shared by every replica; undefined: in this process only
   */
  sessionStore?: { namespace: string; cluster?: ClusterId };
  /**
   * The install's keys (session records and cookie, audit seals): read from the key Secret by
   * startConsole when sessions are shared; undefined: made here, for this process only
   */
  keys?: InstallKeys;
  limits?: Partial<Limits>;
  /** palisade.yaml server.trustedProxies: peers whose X-Forwarded-For names the client */
  trustedProxies?: string[];
  /** print a one-time sign-in link (loopback, no identity provider) */
  signInLink?: boolean;
  /** how long a printed one-time link works (default 15 minutes) */
  signInLinkTtlMs?: number;
  /**
   * OIDC sign-in is configured, so Palisade may act as a person by impersonation (the chart grants
   * `impersonate` only then); without it a session that would impersonate is refused
   */
  impersonates?: boolean;
  /**
   * Prints a line for whoever started Palisade: the next one-time link once one is used. Never
   * the log: the link is a secret for that terminal only (main.ts prints to stdout).
   */
  announce?: (line: string) => void;
  /** where its lines go (component 'auth'; the root logger by default) */
  logger?: Logger;
}

export interface Admitted {
  route: Route;
  nonce: string;
  /** the client's address (behind trusted proxies, the forwarded one): what limits count per */
  client: string;
  identity?: Identity;
  session?: Session;
}

type Found =
  | { kind: 'bearer'; token: string }
  | { kind: 'session'; session: Session }
  /** no credential; `ended` when the cookie's session ended lately, and why */
  | { kind: 'none'; ended?: EndReason }
  /** the session cookie sent more than once: planted by another server on this host */
  | { kind: 'conflict'; count: number };

type Identified = Admitted | { status: 401 | 429; refusal: string; code: string; retryAfterSeconds?: number };

const admitted = new WeakMap<http.IncomingMessage, Admitted>();

/** What the gate found out about a request it let through (the tRPC context and socket.io read it). */
export function admittedOf(req: http.IncomingMessage): Admitted | undefined {
  return admitted.get(req);
}

export class ConsoleAuth {
  readonly sessions: SessionStore;
  readonly tokens: TokenAuthenticator;
  readonly access: AccessReviews;
  readonly limits: RateLimits;
  readonly metrics: AuthMetrics = authMetrics();
  /** the install's keys: the audit seals use `keys.audit` */
  readonly keys: InstallKeys;
  private readonly sessionKeys: SessionKeys;
  private readonly proxies: TrustedProxies;
  cookie: CookieSettings;
  link?: SignInLink;
  private port = 0;
  readonly log: Logger;

  constructor(private readonly opts: AuthOptions) {
    this.log = component('auth', {}, opts.logger);
    this.keys = opts.keys ?? processKeys();
    this.sessionKeys = sessionKeys(this.keys.session);
    this.proxies = trustedProxies(opts.trustedProxies ?? []);
    this.sessions = this.makeStore();
    this.tokens = new TokenAuthenticator(opts.clusters);
    this.access = new AccessReviews(opts.clusters);
    this.limits = new RateLimits(opts.limits ?? DEFAULT_LIMITS);
    this.cookie = this.cookieFor(0);
  }

  private makeStore(): SessionStore {
    const limits = this.opts.session ?? DEFAULT_SESSION_LIMITS;
    const where = this.opts.sessionStore;
    if (!where) return new SessionStore(limits);
    const conn = where.cluster
      ? this.opts.clusters.get(where.cluster)
      : this.opts.clusters.values().next().value;
    if (!conn) throw new Error(`session store: no cluster "${where.cluster ?? '(none connected)'}"`);
    this.log.info(
      { cluster: conn.id, namespace: where.namespace },
      'sessions are kept in Kubernetes Secrets',
    );
    const secrets = new SessionSecrets(conn.registry, where.namespace, this.log, this.sessionKeys.records);
    return new SharedSessionStore(secrets, REPLICA_IDENTITY, this.log, limits);
  }

  private cookieFor(port: number) {
    const limits = this.opts.session ?? DEFAULT_SESSION_LIMITS;
    // replicas behind one public address name the cookie alike whatever port each listens on
    const named = cookiePort(port, this.opts.publicURL);
    return cookieSettings(this.https, named, Math.floor(limits.absoluteMs / 1000));
  }

  /** The session cookie's value for a new session's id: sealed with this install's cookie key. */
  cookieValueFor(id: string): string {
    return sealCookie(id, this.sessionKeys.cookie);
  }

  /** Who a request comes from (behind server.trustedProxies, the forwarded client). */
  clientOf(req: http.IncomingMessage): string {
    return clientOf(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.proxies);
  }

  get https(): boolean {
    return this.opts.publicURL?.startsWith('https:') ?? false;
  }

  get clusters() {
    return this.opts.clusters;
  }

  /** Once the server listens: the port loopback names must carry, and the sign-in link. */
  listening(port: number, baseUrl: string) {
    this.port = port;
    this.cookie = this.cookieFor(port);
    if (this.opts.signInLink)
      this.link = new SignInLink(
        baseUrl,
        (url, why) => {
          this.log.info(
            why === 'used'
              ? 'signed in with the one-time link: a new link replaces it'
              : 'an expired one-time link was tried: a new link replaces it',
          );
          this.opts.announce?.(
            why === 'used'
              ? `Next one-time sign-in link: ${url}`
              : `The one-time sign-in link had expired; a new one: ${url}`,
          );
        },
        this.opts.signInLinkTtlMs,
      );
  }

  private rules(): HostRules {
    return { port: this.port, allowed: this.opts.allowedHosts ?? [], publicURL: this.opts.publicURL };
  }

  /** Judge an HTTP request; answers refusals itself and returns undefined for them. */
  async admit(req: http.IncomingMessage, res: http.ServerResponse): Promise<Admitted | undefined> {
    const nonce = randomBytes(16).toString('base64');
    for (const [k, v] of Object.entries(securityHeaders(nonce, this.https))) res.setHeader(k, v);
    res.setHeader('x-palisade-replica', REPLICA_IDENTITY);
    const found = await this.credentialOf(req);
    const verdict = judgeRequest(this.gateRequest(req, gateCredential(found)), this.rules());
    // answers of the API, sign-in, sockets and /metrics are the person's own: never cached
    if (NO_STORE.has(verdict.route)) res.setHeader('cache-control', 'no-store');
    if (found.kind === 'conflict' && !(!verdict.ok && verdict.status !== 302 && verdict.status !== 401))
      return this.conflict(req, res, verdict.route, found.count, nonce);
    if (!verdict.ok) {
      if (verdict.status === 405 || verdict.status === 413)
        this.metrics.refused.inc({ reason: verdict.code.replaceAll('_', '-') });
      // the body is not wanted: close the connection rather than read it to the end
      if (verdict.status === 413) res.setHeader('connection', 'close');
      return void refuse(res, verdict, found.kind === 'none' ? found.ended : undefined);
    }
    const a = await this.identify(req, verdict.route, nonce, found);
    if ('refusal' in a) return void this.refuseIdentity(res, a);
    admitted.set(req, a);
    return a;
  }

  /** Judge a WebSocket upgrade; writes a refusal to the raw socket and returns undefined for it. */
  async admitUpgrade(req: http.IncomingMessage, socket: Duplex): Promise<Admitted | undefined> {
    const found = await this.credentialOf(req);
    if (found.kind === 'conflict') {
      this.metrics.refused.inc({ reason: 'cookie-conflict' });
      return void refuseUpgrade(socket, 401, 'cookie_conflict');
    }
    const verdict = judgeRequest(
      { ...this.gateRequest(req, gateCredential(found)), upgrade: true },
      this.rules(),
    );
    if (!verdict.ok)
      return void refuseUpgrade(socket, verdict.status === 302 ? 401 : verdict.status, verdict.code);
    const a = await this.identify(req, verdict.route, '', found);
    if ('refusal' in a) return void refuseUpgrade(socket, a.status, a.code);
    admitted.set(req, a);
    return a;
  }

  /**
   * The session cookie came twice (another server on this host planted one with a longer Path):
   * nobody's session is used, every copy this path could carry is cleared, and the person signs
   * in again. The sign-in page and its assets still load.
   */
  private conflict(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: Route,
    count: number,
    nonce: string,
  ): Admitted | undefined {
    const path = new URL(req.url ?? '/', 'http://gate').pathname;
    const client = this.clientOf(req);
    this.metrics.refused.inc({ reason: 'cookie-conflict' });
    this.log.warn(
      { client, path, copies: count },
      'the session cookie was sent more than once (planted by another server on this host?): refused, cleared',
    );
    res.setHeader('set-cookie', clearedCookiesFor(this.cookie, path));
    if (route === 'signin' || route === 'asset' || route === 'health') {
      const a: Admitted = { route, nonce, client };
      admitted.set(req, a);
      return a;
    }
    const message =
      'this browser sent the session cookie more than once: another site on this host set one. Both were cleared: sign in again';
    if (route === 'page')
      return void refuse(res, {
        ok: false,
        route,
        status: 302,
        code: 'signin_required',
        location: '/signin?error=cookie',
      });
    sendJson(res, 401, { error: message, code: 'cookie_conflict' });
    return undefined;
  }

  private refuseIdentity(res: http.ServerResponse, a: Exclude<Identified, Admitted>) {
    sendJson(
      res,
      a.status,
      { error: a.refusal, code: a.code },
      a.retryAfterSeconds ? { 'retry-after': String(a.retryAfterSeconds) } : {},
    );
  }

  /**
   * A Kubernetes token, as a bearer header or pasted at sign-in: a token already known good
   * costs no review; any other waits while its client or the token itself is over its failure
   * limit, and then costs one review per cluster. Failures are counted, logged and limited;
   * every sign-in (it makes a session) and every fresh review count against the person's limit.
   */
  async authenticateToken(
    client: string,
    token: string,
    method: Extract<AuthMethod, 'bearer' | 'token'>,
  ): Promise<{ identity: Identity } | Exclude<Identified, Admitted>> {
    const fingerprint = tokenFingerprint(token.trim());
    const known = await this.tokens.cached(token, method);
    let identity: Identity;
    if (known?.ok) {
      if (method === 'bearer') return { identity: known.identity };
      identity = known.identity;
    } else {
      const may = await this.limits.mayTry(client, fingerprint);
      if (!may.ok) return this.limited(may, method, client, fingerprint);
      const check = await this.tokens.check(token, method);
      if (!check.ok) {
        await this.limits.failed(client, fingerprint);
        this.failedAttempt(method, client, check.message, fingerprint);
        return { status: 401, refusal: check.message, code: 'unauthenticated' };
      }
      identity = check.identity;
    }
    const person = await this.limits.authenticated(nameOn(identity));
    if (!person.ok) return this.limited(person, method, client, fingerprint);
    this.metrics.attempts.inc({ method, outcome: 'ok' });
    return { identity };
  }

  /**
   * The instance-ID endpoint checks pods' ServiceAccount tokens itself (a TokenReview each): the
   * same failure limits hold there. Answers 429 and returns true when the client or the token
   * is over its limit; a 401 the endpoint gives counts as a failure.
   */
  async limitPodTokens(req: http.IncomingMessage, res: http.ServerResponse, a: Admitted): Promise<boolean> {
    const token = bearerToken(req)?.trim();
    const fingerprint = token ? tokenFingerprint(token) : undefined;
    const may = await this.limits.mayTry(a.client, fingerprint);
    if (!may.ok) {
      this.refuseIdentity(res, this.limited(may, 'bearer', a.client, fingerprint));
      return true;
    }
    res.once('finish', () => {
      if (res.statusCode !== 401) return;
      void this.limits.failed(a.client, fingerprint);
      this.failedAttempt('bearer', a.client, 'the instance-ID endpoint refused the token', fingerprint);
    });
    return false;
  }

  /** A failed authentication: logged (never the credential) and counted. */
  failedAttempt(method: AuthMethod, client: string, why: string, fingerprint?: string) {
    this.metrics.attempts.inc({ method, outcome: 'failed' });
    this.log.warn(
      { method, client, reason: why, ...(fingerprint ? { fingerprint: fingerprint.slice(0, 8) } : {}) },
      'authentication failed',
    );
  }

  /** A 429 for a limit reached: logged, counted, and saying when to try again. */
  limited(
    admit: Exclude<Admit, { ok: true }>,
    method: AuthMethod | 'mutation',
    client: string,
    fingerprint?: string,
  ): Exclude<Identified, Admitted> {
    this.metrics.rateLimited.inc({ limit: admit.limit });
    if (method !== 'mutation') this.metrics.attempts.inc({ method, outcome: 'rate-limited' });
    this.log.warn(
      {
        method,
        client,
        limit: admit.limit,
        retryAfterSeconds: admit.retryAfterSeconds,
        ...(fingerprint ? { fingerprint: fingerprint.slice(0, 8) } : {}),
      },
      'rate limited',
    );
    return {
      status: 429,
      code: 'rate_limited',
      refusal: `${LIMIT_WORDS[admit.limit]}: try again in ${admit.retryAfterSeconds} s`,
      retryAfterSeconds: admit.retryAfterSeconds,
    };
  }

  stop() {
    this.sessions.stop();
  }

  private async credentialOf(req: http.IncomingMessage): Promise<Found> {
    // a client never tells Palisade whom to impersonate
    for (const h of Object.keys(req.headers)) if (/^impersonate-/i.test(h)) delete req.headers[h];
    const token = bearerToken(req);
    if (token) return { kind: 'bearer', token };
    const cookie = findSessionCookie(req.headers.cookie, this.cookie.name);
    if (cookie.kind === 'conflict') return cookie;
    if (cookie.kind === 'none') return cookie;
    // a value this install did not seal is no session: no store is asked about it
    const id = openCookie(cookie.value, this.sessionKeys.cookie);
    const r = id ? await this.sessions.sessionOrEnded(id) : {};
    if ('session' in r) return { kind: 'session', session: r.session };
    return r.ended ? { kind: 'none', ended: r.ended } : { kind: 'none' };
  }

  private gateRequest(req: http.IncomingMessage, credential: GateCredential) {
    const url = new URL(req.url ?? '/', 'http://gate');
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    return {
      method: req.method ?? 'GET',
      path: url.pathname,
      search: url.search,
      host: header('host'),
      origin: header('origin'),
      fetchSite: header('sec-fetch-site'),
      contentType: header('content-type'),
      ...(req.headers['content-length'] !== undefined
        ? {
            contentLength: /^\d+$/.test(header('content-length') ?? '')
              ? Number(header('content-length'))
              : Number.NaN,
          }
        : {}),
      credential,
    };
  }

  private async identify(
    req: http.IncomingMessage,
    route: Route,
    nonce: string,
    found: Found,
  ): Promise<Identified> {
    const client = this.clientOf(req);
    if (found.kind === 'session') {
      if (found.session.credential.kind === 'impersonate' && !this.opts.impersonates) {
        // written while OIDC was on, or by whoever could write the store: never acted on
        this.log.warn(
          { method: found.session.method },
          'a session acts by impersonation but OIDC sign-in is off: ended',
        );
        await this.sessions.end(found.session.sessionKey, 'signed-out');
        return { status: 401, refusal: 'OIDC sign-in is off: sign in again', code: 'signin_required' };
      }
      return { route, nonce, client, identity: found.session, session: found.session };
    }
    if (found.kind !== 'bearer') return { route, nonce, client };
    // a pod's ServiceAccount token: the instance-ID endpoint checks it with a TokenReview and
    // that it is bound to the pod asking; it is never sent to the cluster as a credential
    if (route === 'instance-ids') return { route, nonce, client };
    const r = await this.authenticateToken(client, found.token, 'bearer');
    if ('refusal' in r) return r;
    return { route, nonce, client, identity: r.identity };
  }
}

/** Routes whose answers are the person's own: never kept by a browser or a proxy. */
const NO_STORE = new Set<Route>(['trpc', 'auth', 'socket', 'metrics', 'instance-ids']);

const LIMIT_WORDS: Record<LimitName, string> = {
  signin: 'too many sign-in attempts from this address',
  'client-failures': 'too many failed sign-in attempts from this address',
  'token-failures': 'this token failed too many times',
  user: 'too many sign-ins for this person',
  mutations: 'too many changes in a short time',
};

function gateCredential(found: Found): GateCredential {
  return found.kind === 'conflict' ? 'none' : found.kind === 'session' ? 'session' : found.kind;
}

/** A gate refusal; `ended` says why the request's session ended, for the sign-in page to say. */
function refuse(res: http.ServerResponse, v: Exclude<GateVerdict, { ok: true }>, ended?: EndReason) {
  if (v.status === 302) {
    const location = ended ? `${v.location}&ended=${ended}` : v.location;
    res.writeHead(302, { location, 'cache-control': 'no-store', 'content-length': '0' });
    return res.end();
  }
  const why = ended && v.status === 401 ? { ended } : {};
  sendJson(res, v.status, { error: v.message, code: v.code, ...why });
}

const REASONS: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
};

function refuseUpgrade(socket: Duplex, status: number, code: string) {
  const body = JSON.stringify({ error: code, code });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
