// A Kubernetes token, pasted at sign-in or sent by a script as `Authorization: Bearer`, checked
// by every cluster the console shows (a token is valid where it was issued): the person is
// signed in to each cluster whose SelfSubjectReview accepts it. Answers are cached for a short
// time by the token's hash, so a script's requests do not each cost a review.
import { createHash } from 'node:crypto';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Identity, Principal, SignInMethod } from './identity.js';
import { whoAmI } from './whoami.js';

export const TOKEN_CACHE_MS = 10_000;
const MAX_TOKEN_LENGTH = 16_384;

/** A token's SHA-256 (base64url): the key of caches and rate limits; its first 8 characters go to the log. */
export const tokenFingerprint = (token: string) => createHash('sha256').update(token).digest('base64url');

export type TokenCheck = { ok: true; identity: Identity } | { ok: false; status: 401; message: string };

export class TokenAuthenticator {
  private readonly cache = new Map<string, { at: number; result: Promise<TokenCheck> }>();

  constructor(
    private readonly clusters: Map<ClusterId, ClusterConnection>,
    private readonly ttlMs = TOKEN_CACHE_MS,
  ) {}

  /** The answer already known (or being asked) for this token, which costs the clusters nothing. */
  cached(token: string, method: SignInMethod = 'bearer'): Promise<TokenCheck> | undefined {
    const hit = this.cache.get(`${method}|${tokenFingerprint(token.trim())}`);
    return hit && Date.now() - hit.at < this.ttlMs ? hit.result : undefined;
  }

  check(token: string, method: SignInMethod = 'bearer'): Promise<TokenCheck> {
    const t = token.trim();
    if (!t || t.length > MAX_TOKEN_LENGTH || /\s/.test(t))
      return Promise.resolve({ ok: false, status: 401, message: 'that is not a Kubernetes bearer token' });
    const key = `${method}|${tokenFingerprint(t)}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.result;
    for (const [k, v] of this.cache) if (now - v.at >= this.ttlMs) this.cache.delete(k);
    const result = this.review(t, method);
    this.cache.set(key, { at: now, result });
    return result;
  }

  private async review(token: string, method: SignInMethod): Promise<TokenCheck> {
    const credential = { kind: 'token' as const, token };
    const answers = await Promise.all(
      [...this.clusters.values()].map(async (c) => [c.id, await whoAmI(c, credential)] as const),
    );
    const principals = new Map<ClusterId, Principal>();
    for (const [id, a] of answers) if (a.ok) principals.set(id, a.principal);
    if (principals.size === 0)
      return {
        ok: false,
        status: 401,
        message: answers.map(([, a]) => (a.ok ? '' : a.message)).join('; '),
      };
    return { ok: true, identity: { method, credential, principals } };
  }
}
