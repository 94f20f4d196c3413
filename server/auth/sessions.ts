// Browser sessions: an opaque random id in an HttpOnly, SameSite=Strict cookie, mapped here
// to the person's identity and credential, which never leave the server. Sessions end when
// idle, at their absolute limit, at sign-out (this one, or every session of the person), or
// when an identity provider stops renewing them; listeners (the socket hub) hear of every
// end, so live connections close with their session. An open console tab keeps its session
// from going idle: watching the map is activity.
//
// This store keeps sessions in this process (one `npm start`); SharedSessionStore
// (sharedSessions.ts) keeps them in Kubernetes Secrets for replicas. Sessions are keyed by a
// SHA-256 of their id: the id itself is never kept, and a lookup by its hash cannot be timed
// into revealing a valid id.
import { createHash, randomBytes } from 'node:crypto';
import { DEFAULT_SESSION_LIMITS, type SessionLimits, sessionState } from '../../lib/auth/session.js';
import type { EndReason } from '../../lib/auth/sharedSession.js';
import type { Credential, Identity, Principal } from './identity.js';

export type { EndReason };

/** The store's key for a session id (hex SHA-256): safe to keep, compare and log a prefix of. */
export const sessionKey = (id: string) => createHash('sha256').update(id).digest('hex');

export interface Session extends Identity {
  sessionKey: string;
  createdAt: number;
  lastSeenAt: number;
  /** OIDC sessions: what keeps them alive (server-side only) */
  oidc?: { refreshToken?: string; idToken?: string; expiresAt?: number; issuedAt?: number };
}

/** What an OIDC renewal produced: new tokens, and who the provider now says the person is. */
export interface Renewed {
  oidc: NonNullable<Session['oidc']>;
  credential?: Credential;
  principals?: Map<string, Principal>;
}

type EndListener = (s: Session, why: EndReason) => void;

/** How many ended sessions' reasons are kept, and for how long (a page's next request comes soon). */
const ENDED_REMEMBERED = 1_000;
const ENDED_REMEMBERED_MS = 10 * 60_000;

/** how often ended sessions are looked for: often enough to end a short session on time */
const sweepMs = (l: SessionLimits) =>
  Math.min(15_000, Math.max(1_000, Math.floor(Math.min(l.idleMs, l.absoluteMs) / 4)));

export class SessionStore {
  protected readonly sessions = new Map<string, Session>();
  /** key -> why and when it ended, for the page's next request (bounded) */
  private readonly recentlyEnded = new Map<string, { why: EndReason; at: number }>();
  private readonly listeners: EndListener[] = [];
  /** sessions with a live socket: not idle while it stays open */
  private readonly attached = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    protected readonly now: () => number = Date.now,
    /** the limits sessions are judged by (a shared store adds slack to idle) */
    protected readonly judge: SessionLimits = limits,
  ) {
    this.timer = setInterval(() => this.sweep(), sweepMs(limits));
    this.timer.unref();
  }

  /** A new session; `id` goes into the cookie and nowhere else. */
  async create(
    identity: Omit<Identity, 'sessionKey'>,
    oidc?: Session['oidc'],
  ): Promise<{ session: Session; id: string }> {
    const id = randomBytes(32).toString('base64url');
    const at = this.now();
    const s: Session = {
      ...identity,
      sessionKey: sessionKey(id),
      createdAt: at,
      lastSeenAt: at,
      ...(oidc ? { oidc } : {}),
    };
    return { session: await this.keep(s), id };
  }

  /** The live session for a cookie's id, marked as just used; undefined when none or ended. */
  async use(id: string | undefined): Promise<Session | undefined> {
    const r = await this.sessionOrEnded(id);
    return 'session' in r ? r.session : undefined;
  }

  /**
   * The live session for a cookie's id, or why it ended when this replica saw it end lately: a
   * page whose request comes just after its session ended is told why (as its socket is), not
   * only that it must sign in again.
   */
  async sessionOrEnded(id: string | undefined): Promise<{ session: Session } | { ended?: EndReason }> {
    if (!id) return {};
    const key = sessionKey(id);
    const s = await this.lookup(key);
    if (!s) return this.endedLately(key);
    const state = sessionState(s, this.now(), this.judge);
    if (!state.alive) {
      await this.expire(key, state.ended);
      return { ended: state.ended };
    }
    s.lastSeenAt = this.now();
    this.used(key);
    return { session: s };
  }

  private endedLately(key: string): { ended?: EndReason } {
    const e = this.recentlyEnded.get(key);
    return e && this.now() - e.at < ENDED_REMEMBERED_MS ? { ended: e.why } : {};
  }

  /** When it ends unless used again. */
  expiresAt(s: Session): number {
    const state = sessionState(s, this.now(), this.judge);
    return state.alive ? state.expiresAt : this.now();
  }

  /** End a session (sign-out, a refused renewal): resolves once no replica accepts it any more. */
  async end(key: string, why: EndReason): Promise<void> {
    this.endHere(key, why);
  }

  /** Sign out everywhere: every session of the person this session belongs to. */
  async endAllLike(s: Session, why: EndReason) {
    const names = new Set([...s.principals.values()].map((p) => p.username));
    for (const [key, principals] of await this.everyone())
      if ([...principals.values()].some((p) => names.has(p.username))) await this.end(key, why);
  }

  /**
   * Renew an OIDC session with `refresh` (given the tokens to renew); false when there was
   * nothing for this replica to do. A failed renewal rethrows; it ends the session unless
   * `keep` says the failure may pass (the provider was away: it is tried again later).
   */
  async renew(
    key: string,
    refresh: (oidc: Session['oidc']) => Promise<Renewed>,
    keep: (e: unknown) => boolean = () => false,
  ): Promise<boolean> {
    const s = this.sessions.get(key);
    if (!s) return false;
    try {
      const r = await refresh(s.oidc);
      s.oidc = r.oidc;
      if (r.credential) s.credential = r.credential;
      if (r.principals) s.principals = r.principals;
      return true;
    } catch (e) {
      if (!keep(e)) await this.end(key, 'refresh-failed');
      throw e;
    }
  }

  onEnd(l: EndListener) {
    this.listeners.push(l);
  }

  attach(key: string) {
    this.attached.set(key, (this.attached.get(key) ?? 0) + 1);
  }

  detach(key: string) {
    const n = (this.attached.get(key) ?? 1) - 1;
    if (n > 0) this.attached.set(key, n);
    else this.attached.delete(key);
  }

  get size() {
    return this.sessions.size;
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  sweep() {
    const now = this.now();
    for (const s of [...this.sessions.values()]) {
      if (this.attached.has(s.sessionKey)) {
        s.lastSeenAt = Math.max(s.lastSeenAt, now);
        this.used(s.sessionKey);
      }
      const state = sessionState(s, now, this.judge);
      if (!state.alive) void this.expire(s.sessionKey, state.ended);
    }
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Keep a new session (a shared store writes it where every replica reads it first). */
  protected async keep(s: Session): Promise<Session> {
    this.sessions.set(s.sessionKey, s);
    return s;
  }

  protected async lookup(key: string): Promise<Session | undefined> {
    return this.sessions.get(key);
  }

  /** A session found ended by its times. */
  protected async expire(key: string, why: EndReason): Promise<void> {
    this.endHere(key, why);
  }

  /** It was just used (a shared store writes that back now and then). */
  protected used(_key: string) {}

  /** Every session and whom it belongs to (a shared store asks the store, not just this replica). */
  protected async everyone(): Promise<[string, Map<string, Principal>][]> {
    return [...this.sessions].map(([k, s]) => [k, s.principals]);
  }

  /** Forget a session here and tell the listeners (its sockets close). */
  protected endHere(key: string, why: EndReason) {
    this.recentlyEnded.delete(key);
    this.recentlyEnded.set(key, { why, at: this.now() });
    // bounded: the oldest go first (a Map keeps insertion order)
    for (const k of this.recentlyEnded.keys()) {
      if (this.recentlyEnded.size <= ENDED_REMEMBERED) break;
      this.recentlyEnded.delete(k);
    }
    const s = this.sessions.get(key);
    if (!s) return;
    this.sessions.delete(key);
    this.attached.delete(key);
    for (const l of this.listeners) l(s, why);
  }
}
