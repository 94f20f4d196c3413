// An OpenID Connect sign-in in progress (state, PKCE verifier, nonce, where to go after), kept
// in the browser's flow cookie sealed with AES-256-GCM under a key derived from the client
// secret — which every replica has and no browser sees — so the callback may reach any replica
// (a round-robin balancer), and nothing is held in a process's memory. The cookie is
// authenticated (a changed byte fails), binds the flow to the browser that started it, and ends
// after the flow's lifetime.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface OidcFlow {
  state: string;
  verifier: string;
  nonce: string;
  next: string;
  /** ms since the epoch, when it started */
  at: number;
}

const INFO = 'palisade oidc sign-in flow v1';

const keyOf = (secret: string) => Buffer.from(hkdfSync('sha256', secret, 'palisade', INFO, 32));

/** The cookie value: base64url(iv | ciphertext | tag). */
export function sealFlow(flow: OidcFlow, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flow), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

export type OpenedFlow = { ok: true; flow: OidcFlow } | { ok: false; why: 'unreadable' | 'expired' };

/** The flow in a cookie value, if it was sealed with this secret and is younger than ttlMs. */
export function openFlow(value: string, secret: string, now: number, ttlMs: number): OpenedFlow {
  try {
    const raw = Buffer.from(value, 'base64url');
    if (raw.length < 12 + 16 + 2) return { ok: false, why: 'unreadable' };
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([
      decipher.update(raw.subarray(12, raw.length - 16)),
      decipher.final(),
    ]).toString('utf8');
    const f = JSON.parse(text) as Partial<OidcFlow>;
    if (
      typeof f.state !== 'string' ||
      typeof f.verifier !== 'string' ||
      typeof f.nonce !== 'string' ||
      typeof f.next !== 'string' ||
      typeof f.at !== 'number'
    )
      return { ok: false, why: 'unreadable' };
    if (now - f.at > ttlMs || f.at > now + 60_000) return { ok: false, why: 'expired' };
    return { ok: true, flow: f as OidcFlow };
  } catch {
    return { ok: false, why: 'unreadable' };
  }
}
