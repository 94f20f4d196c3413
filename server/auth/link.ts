// The one-time sign-in link printed by `npm start` on loopback when no identity provider is
// configured (Jupyter's token, once): whoever started Palisade holds its kubeconfig already,
// and the link signs their browser in as that kubeconfig's user. Each link works once; using
// it prints the next one to the same terminal.
import { randomBytes, timingSafeEqual } from 'node:crypto';

export class SignInLink {
  private secret = randomBytes(24).toString('base64url');

  constructor(
    private readonly baseUrl: string,
    private readonly announce: (url: string) => void,
  ) {}

  get url(): string {
    return `${this.baseUrl}/auth/link?token=${this.secret}`;
  }

  /** True once for the current secret; the link then changes and the new one is announced. */
  consume(token: string | null): boolean {
    if (!token) return false;
    const a = Buffer.from(token);
    const b = Buffer.from(this.secret);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
    this.secret = randomBytes(24).toString('base64url');
    this.announce(this.url);
    return true;
  }
}
