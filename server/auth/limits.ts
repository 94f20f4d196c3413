// Rate limits (rate-limiter-flexible, in memory), each keyed as lib/auth/clientAddress.ts says
// (per client: an IPv4 address or an IPv6 /64, behind server.trustedProxies the forwarded
// client, never one bucket for a whole proxy):
// - sign-in attempts per client (token, one-time link, OIDC), so a page cannot be hammered;
// - failed authentications per client and per token (by its hash), on every way in — a bearer
//   token on any route, a pasted token, the link, the OIDC callback — so guessing tokens is
//   slow and each guess costs the cluster nothing once the bucket is empty (a token already
//   known good is never held up: it costs no review);
// - authentications per person (sign-ins and fresh token reviews), so one person's script
//   cannot flood the clusters with SelfSubjectReviews through new tokens;
// - mutations per person, so a runaway script or a stuck button cannot hammer the cluster.
// A refusal says when to try again.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { clientKey } from '../../lib/auth/clientAddress.js';

export interface Limits {
  /** sign-in attempts (token, link, OIDC) per client per minute */
  signInPerMinute: number;
  /** failed authentications per client per minute; beyond it the client's attempts wait */
  failuresPerMinute: number;
  /** failed checks of one token per minute, whoever sends it */
  failuresPerTokenPerMinute: number;
  /** sign-ins and fresh token reviews per person per minute */
  authenticationsPerUserPerMinute: number;
  /** mutations per person per minute */
  mutationsPerMinute: number;
}

export const DEFAULT_LIMITS: Limits = {
  signInPerMinute: 20,
  failuresPerMinute: 10,
  failuresPerTokenPerMinute: 5,
  authenticationsPerUserPerMinute: 30,
  mutationsPerMinute: 120,
};

/** Which limit refused: a metrics label and the reason code in a 429's body. */
export type LimitName = 'signin' | 'client-failures' | 'token-failures' | 'user' | 'mutations';

export type Admit = { ok: true } | { ok: false; retryAfterSeconds: number; limit: LimitName };

const perMinute = (keyPrefix: string, points: number) =>
  new RateLimiterMemory({ keyPrefix, points, duration: 60 });

export class RateLimits {
  private readonly signIn: RateLimiterMemory;
  private readonly clientFailures: RateLimiterMemory;
  private readonly tokenFailures: RateLimiterMemory;
  private readonly users: RateLimiterMemory;
  private readonly mutations: RateLimiterMemory;

  constructor(limits: Partial<Limits> = DEFAULT_LIMITS) {
    const l = { ...DEFAULT_LIMITS, ...limits };
    this.signIn = perMinute('signin', l.signInPerMinute);
    this.clientFailures = perMinute('fail-client', l.failuresPerMinute);
    this.tokenFailures = perMinute('fail-token', l.failuresPerTokenPerMinute);
    this.users = perMinute('user', l.authenticationsPerUserPerMinute);
    this.mutations = perMinute('mutate', l.mutationsPerMinute);
  }

  /** One sign-in attempt by this client. */
  signInFrom(client: string): Promise<Admit> {
    return consume(this.signIn, clientKey(client), 'signin');
  }

  /** May this client (and this token, by its hash) try to authenticate now? Consumes nothing. */
  async mayTry(client: string, tokenHash?: string): Promise<Admit> {
    const c = await spent(this.clientFailures, clientKey(client), 'client-failures');
    if (!c.ok || !tokenHash) return c;
    return spent(this.tokenFailures, tokenHash, 'token-failures');
  }

  /** A failed authentication by this client (with this token). */
  async failed(client: string, tokenHash?: string): Promise<void> {
    await consume(this.clientFailures, clientKey(client), 'client-failures');
    if (tokenHash) await consume(this.tokenFailures, tokenHash, 'token-failures');
  }

  /** A person authenticated (a sign-in, or a token reviewed afresh). */
  authenticated(person: string): Promise<Admit> {
    return consume(this.users, person, 'user');
  }

  mutationBy(person: string): Promise<Admit> {
    return consume(this.mutations, person, 'mutations');
  }
}

async function consume(limiter: RateLimiterMemory, key: string, limit: LimitName): Promise<Admit> {
  try {
    await limiter.consume(key);
    return { ok: true };
  } catch (e) {
    if (e instanceof RateLimiterRes)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)), limit };
    throw e;
  }
}

async function spent(limiter: RateLimiterMemory, key: string, limit: LimitName): Promise<Admit> {
  const r = await limiter.get(key);
  if (!r || r.remainingPoints > 0) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(r.msBeforeNext / 1000)), limit };
}
