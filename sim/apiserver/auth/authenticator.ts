// Bearer-token authentication as kube-apiserver's: static tokens (the admin token and a
// --token-auth-file), then ServiceAccount tokens; every authenticated user gets the group
// system:authenticated. No credentials is the anonymous user; a token that authenticates as
// nobody is refused (401) whatever the path.
import type { UserInfo } from '../core/context.js';
import { API_AUDIENCE, type ServiceAccountTokens } from './serviceAccountTokens.js';
import type { TokenEntry } from './tokenFile.js';

const INVALID = 'invalid bearer token';

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes('system:authenticated')
    ? u
    : { ...u, groups: [...u.groups, 'system:authenticated'] };
}

/** the bearer token of an Authorization header, as bearertoken.Authenticator splits it */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || !parts[1]) return undefined;
  return parts[1];
}

export class Authenticator {
  private readonly tokens = new Map<string, UserInfo>();

  constructor(
    entries: TokenEntry[],
    readonly serviceAccounts: ServiceAccountTokens,
  ) {
    for (const e of entries) {
      const user: UserInfo = { username: e.username, uid: e.uid, groups: e.groups };
      if (!e.uid) delete user.uid;
      this.tokens.set(e.token, withAuthenticatedGroup(user));
    }
  }

  /**
   * The user a token stands for, with the audiences it was accepted for (a static token: the
   * API server's own, and only those), or why not, as a TokenReview says it.
   */
  authenticateToken(
    token: string,
    audiences?: string[],
  ): { user: UserInfo; audiences: string[]; error?: undefined } | { error: string } {
    const wanted = audiences?.length ? audiences : [API_AUDIENCE];
    const user = this.tokens.get(token);
    if (user && wanted.includes(API_AUDIENCE)) return { user, audiences: [API_AUDIENCE] };
    const sa = this.serviceAccounts.authenticate(token, wanted);
    if (sa && 'user' in sa) return sa;
    return { error: sa ? `[${INVALID}, ${sa.error}]` : INVALID };
  }
}
