// Browser sessions: an opaque random id in an HttpOnly, SameSite=Strict cookie, mapped here
// to the person's identity and credential, which never leave the server. Sessions end when
// idle, at their absolute limit, at sign-out (this one, or every session of the person), or
// when an identity provider stops renewing them; listeners (the socket hub) hear of every
// end, so live connections close with their session. An open console tab keeps its session
// from going idle: watching the map is activity.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_SESSION_LIMITS, type SessionLimits, sessionState } from '../../lib/auth/session.js';
import type { Identity } from './identity.js';

export type EndReason = 'idle' | 'absolute' | 'signed-out' | 'refresh-failed';

export interface Session extends Identity {
  sessionId: string;
  createdAt: number;
  lastSeenAt: number;
  /** OIDC sessions: what keeps them alive (server-side only) */
  oidc?: { refreshToken?: string; idToken?: string; expiresAt?: number; issuedAt?: number };
}

type EndListener = (s: Session, why: EndReason) => void;

/** how often ended sessions are looked for: often enough to end a short session on time */
const sweepMs = (l: SessionLimits) =>
  Math.min(15_000, Math.max(1_000, Math.floor(Math.min(l.idleMs, l.absoluteMs) / 4)));

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly listeners: EndListener[] = [];
  /** sessions with a live socket: not idle while it stays open */
  private readonly attached = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.sweep(), sweepMs(limits));
    this.timer.unref();
  }

  create(identity: Omit<Identity, 'sessionId'>, oidc?: Session['oidc']): Session {
    const at = this.now();
    const s: Session = {
      ...identity,
      sessionId: randomBytes(32).toString('base64url'),
      createdAt: at,
      lastSeenAt: at,
      ...(oidc ? { oidc } : {}),
    };
    this.sessions.set(s.sessionId, s);
    return s;
  }

  /** The live session for an id (timing-safe lookup), marked as just used; undefined when none or ended. */
  use(id: string | undefined): Session | undefined {
    const s = this.find(id);
    if (!s) return undefined;
    const state = sessionState(s, this.now(), this.limits);
    if (!state.alive) {
      this.end(s.sessionId, state.ended);
      return undefined;
    }
    s.lastSeenAt = this.now();
    return s;
  }

  /** When it ends unless used again. */
  expiresAt(s: Session): number {
    const state = sessionState(s, this.now(), this.limits);
    return state.alive ? state.expiresAt : this.now();
  }

  end(id: string, why: EndReason) {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.attached.delete(id);
    for (const l of this.listeners) l(s, why);
  }

  /** Sign out everywhere: every session of the person this session belongs to. */
  endAllLike(s: Session, why: EndReason) {
    const names = new Set([...s.principals.values()].map((p) => p.username));
    for (const other of [...this.sessions.values()])
      if ([...other.principals.values()].some((p) => names.has(p.username))) this.end(other.sessionId, why);
  }

  onEnd(l: EndListener) {
    this.listeners.push(l);
  }

  attach(id: string) {
    this.attached.set(id, (this.attached.get(id) ?? 0) + 1);
  }

  detach(id: string) {
    const n = (this.attached.get(id) ?? 1) - 1;
    if (n > 0) this.attached.set(id, n);
    else this.attached.delete(id);
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
      if (this.attached.has(s.sessionId)) s.lastSeenAt = Math.max(s.lastSeenAt, now);
      const state = sessionState(s, now, this.limits);
      if (!state.alive) this.end(s.sessionId, state.ended);
    }
  }

  stop() {
    clearInterval(this.timer);
  }

  private find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    // the map lookup already matched; compare again in constant time so a near-miss and a
    // miss cannot be told apart by timing
    if (!s || !timingSafeEqual(Buffer.from(s.sessionId), Buffer.from(id))) return undefined;
    return s;
  }
}
