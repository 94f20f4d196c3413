// The one-time sign-in link printed by `npm start` on loopback when no identity provider is
// configured (Jupyter's token, once): whoever started Palisade holds its kubeconfig already,
// and the link signs their browser in as that kubeconfig's user. Each link works once and only
// for a while (15 minutes by default): a link copied into a ticket, a chat or a shell history
// is no standing way in. Using it, or trying it once it has expired, prints the next one to the
// same terminal (only whoever holds the exact link can make that happen).
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const DEFAULT_LINK_TTL_MS = 15 * 60_000;

export type LinkUse = 'ok' | 'expired' | 'wrong';

export class SignInLink {
  private secret = randomBytes(24).toString('base64url');
  private issuedAt: number;

  constructor(
    private readonly baseUrl: string,
    private readonly announce: (url: string, why: 'used' | 'expired') => void,
    private readonly ttlMs = DEFAULT_LINK_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.issuedAt = now();
  }

  get url(): string {
    return `${this.baseUrl}/auth/link?token=${this.secret}`;
  }

  /** When the current link stops working (ms since the epoch). */
  get expiresAt(): number {
    return this.issuedAt + this.ttlMs;
  }

  /** 'ok' once for the current secret within its lifetime; the link then changes and the new one is announced. */
  consume(token: string | null): LinkUse {
    if (!token) return 'wrong';
    const a = Buffer.from(token);
    const b = Buffer.from(this.secret);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return 'wrong';
    const expired = this.now() >= this.expiresAt;
    this.secret = randomBytes(24).toString('base64url');
    this.issuedAt = this.now();
    this.announce(this.url, expired ? 'expired' : 'used');
    return expired ? 'expired' : 'ok';
  }
}
