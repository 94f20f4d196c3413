// How long a session lives: it ends after a stretch of inactivity (idle) and, whatever the
// activity, a fixed time after sign-in (absolute), as OWASP's session guidance asks. Pure, so
// the store and its tests agree on one rule.

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 60 * 60_000,
};

export interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
}

export type SessionState =
  | { alive: true; expiresAt: number }
  | { alive: false; ended: 'idle' | 'absolute'; at: number };

export function sessionState(s: SessionTimes, now: number, limits: SessionLimits): SessionState {
  const absolute = s.createdAt + limits.absoluteMs;
  const idle = s.lastSeenAt + limits.idleMs;
  if (now >= absolute) return { alive: false, ended: 'absolute', at: absolute };
  if (now >= idle) return { alive: false, ended: 'idle', at: idle };
  return { alive: true, expiresAt: Math.min(absolute, idle) };
}

/** Why a session ended, in words for the sign-in page. */
export function endedWords(ended: 'idle' | 'absolute' | 'signed-out' | 'refresh-failed' | 'gone'): string {
  switch (ended) {
    case 'gone':
      return 'Your session ended: the console no longer knows it (it restarted, or the session was revoked). Sign in again.';
    case 'idle':
      return 'Your session ended after a while without activity. Sign in again.';
    case 'absolute':
      return 'Your session reached its maximum length. Sign in again.';
    case 'signed-out':
      return 'You are signed out.';
    case 'refresh-failed':
      return 'Your identity provider did not renew your sign-in. Sign in again.';
  }
}

/**
 * The port the session cookie's name carries over plain HTTP (cookies ignore ports, so two
 * consoles on one machine must not share a name). Replicas behind one address listen on
 * different ports but must read one cookie: with a public URL, its port names the cookie.
 */
export function cookiePort(listenPort: number, publicURL?: string): number {
  if (!publicURL) return listenPort;
  const u = new URL(publicURL);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}
