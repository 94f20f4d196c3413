// The console's one request gate and its sign-in routes. Every HTTP request and every
// WebSocket upgrade comes through admit(): security headers, the Host/Origin/content-type
// rules (lib/auth/gate.ts), then who is asking (a session cookie or a bearer token checked by
// the clusters). Nothing else in the server reads a request before this has let it through.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type Credential as GateCredential,
  type GateVerdict,
  judgeRequest,
  type Route,
} from '../../lib/auth/gate.js';
import { securityHeaders } from '../../lib/auth/headers.js';
import type { HostRules } from '../../lib/auth/hosts.js';
import { cookiePort, DEFAULT_SESSION_LIMITS, type SessionLimits } from '../../lib/auth/session.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { ClusterConnection } from '../kube/connection.js';
import { REPLICA_IDENTITY } from '../replica.js';
import { AccessReviews } from './access.js';
import { bearerToken, cookieSettings, cookieValue, sendJson, type CookieSettings } from './http.js';
import type { Identity } from './identity.js';
import { DEFAULT_LIMITS, type Limits, RateLimits } from './limits.js';
import { SignInLink } from './link.js';
import { SessionSecrets } from './sessionSecrets.js';
import { type Session, SessionStore } from './sessions.js';
import { SharedSessionStore } from './sharedSessions.js';
import { TokenAuthenticator } from './tokens.js';
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
  limits?: Limits;
  /** print a one-time sign-in link (loopback, no identity provider) */
  signInLink?: boolean;
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
  identity?: Identity;
  session?: Session;
}

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
  cookie: CookieSettings;
  link?: SignInLink;
  private port = 0;
  private readonly log: Logger;

  constructor(private readonly opts: AuthOptions) {
    this.log = component('auth', {}, opts.logger);
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
    const secrets = new SessionSecrets(conn.registry, where.namespace, this.log);
    return new SharedSessionStore(secrets, REPLICA_IDENTITY, this.log, limits);
  }

  private cookieFor(port: number) {
    const limits = this.opts.session ?? DEFAULT_SESSION_LIMITS;
    // replicas behind one public address name the cookie alike whatever port each listens on
    const named = cookiePort(port, this.opts.publicURL);
    return cookieSettings(this.https, named, Math.floor(limits.absoluteMs / 1000));
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
      this.link = new SignInLink(baseUrl, (url) => {
        this.log.info('signed in with the one-time link: a new link replaces it');
        this.opts.announce?.(`Next one-time sign-in link: ${url}`);
      });
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
    const verdict = judgeRequest(this.gateRequest(req, found.kind), this.rules());
    if (!verdict.ok) return void refuse(res, verdict);
    const a = await this.identify(verdict.route, nonce, found);
    if ('refusal' in a) return void sendJson(res, 401, { error: a.refusal, code: 'unauthenticated' });
    admitted.set(req, a);
    return a;
  }

  /** Judge a WebSocket upgrade; writes a refusal to the raw socket and returns undefined for it. */
  async admitUpgrade(req: http.IncomingMessage, socket: Duplex): Promise<Admitted | undefined> {
    const found = await this.credentialOf(req);
    const verdict = judgeRequest({ ...this.gateRequest(req, found.kind), upgrade: true }, this.rules());
    if (!verdict.ok)
      return void refuseUpgrade(socket, verdict.status === 302 ? 401 : verdict.status, verdict.code);
    const a = await this.identify(verdict.route, '', found);
    if ('refusal' in a) return void refuseUpgrade(socket, 401, 'unauthenticated');
    admitted.set(req, a);
    return a;
  }

  stop() {
    this.sessions.stop();
  }

  private async credentialOf(
    req: http.IncomingMessage,
  ): Promise<{ kind: 'bearer'; token: string } | { kind: 'session'; session: Session } | { kind: 'none' }> {
    // a client never tells Palisade whom to impersonate
    for (const h of Object.keys(req.headers)) if (/^impersonate-/i.test(h)) delete req.headers[h];
    const token = bearerToken(req);
    if (token) return { kind: 'bearer', token };
    const session = await this.sessions.use(cookieValue(req, this.cookie.name));
    return session ? { kind: 'session', session } : { kind: 'none' };
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
      credential,
    };
  }

  private async identify(
    route: Route,
    nonce: string,
    found: Awaited<ReturnType<ConsoleAuth['credentialOf']>>,
  ): Promise<Admitted | { refusal: string }> {
    if (found.kind === 'session') {
      if (found.session.credential.kind === 'impersonate' && !this.opts.impersonates) {
        // written while OIDC was on, or by whoever could write the store: never acted on
        this.log.warn(
          { method: found.session.method },
          'a session acts by impersonation but OIDC sign-in is off: ended',
        );
        await this.sessions.end(found.session.sessionKey, 'signed-out');
        return { refusal: 'OIDC sign-in is off: sign in again' };
      }
      return { route, nonce, identity: found.session, session: found.session };
    }
    if (found.kind === 'none') return { route, nonce };
    // a pod's ServiceAccount token: the instance-ID endpoint checks it with a TokenReview and
    // that it is bound to the pod asking; it is never sent to the cluster as a credential
    if (route === 'instance-ids') return { route, nonce };
    const check = await this.tokens.check(found.token, 'bearer');
    if (!check.ok) return { refusal: check.message };
    return { route, nonce, identity: check.identity };
  }
}

function refuse(res: http.ServerResponse, v: Exclude<GateVerdict, { ok: true }>) {
  if (v.status === 302) {
    res.writeHead(302, { location: v.location, 'cache-control': 'no-store', 'content-length': '0' });
    return res.end();
  }
  sendJson(res, v.status, { error: v.message, code: v.code });
}

const REASONS: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  415: 'Unsupported Media Type',
};

function refuseUpgrade(socket: Duplex, status: number, code: string) {
  const body = JSON.stringify({ error: code, code });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
