// Authentication, impersonation and authorization of every request to the embedded API
// server, in kube-apiserver's order: who the bearer token stands for (static tokens,
// ServiceAccount tokens; anonymous without one), whom they may act as (Impersonate-*), and
// whether that user may do what the URL asks (system:masters first, then RBAC).
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../core/context.js';
import { errors } from '../http/errors.js';
import type { Store } from '../store/store.js';
import { type Attributes, requestAttributes } from './attributes.js';
import { ANONYMOUS, Authenticator, bearerToken } from './authenticator.js';
import { Authorizer, isMaster } from './authorizer.js';
import { forbidden } from './forbidden.js';
import { impersonatedUser, impersonationAttributes, impersonationRequests } from './impersonation.js';
import { ServiceAccountTokens } from './serviceAccountTokens.js';
import { RBAC_KEYS, storeSource } from './storeSource.js';
import type { TokenEntry } from './tokenFile.js';

/** what an unauthenticated client may reach (kube-apiserver lets RBAC decide; here the rest is 401) */
const anonymousPaths = new Set(['/version', '/healthz', '/livez', '/readyz']);

const rbacKeys = new Set(Object.values(RBAC_KEYS));

function hasImpersonation(req: IncomingMessage): boolean {
  const h = req.headers;
  if (
    h['impersonate-user'] !== undefined ||
    h['impersonate-group'] !== undefined ||
    h['impersonate-uid'] !== undefined
  )
    return true;
  for (const k in h) if (k.startsWith('impersonate-extra-')) return true;
  return false;
}

export class AuthServices {
  readonly serviceAccounts: ServiceAccountTokens;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  private readonly unsubscribe: () => void;

  constructor(store: Store, tokens: TokenEntry[]) {
    this.serviceAccounts = new ServiceAccountTokens(
      (ns, name) => store.get('/serviceaccounts', ns, name)?.obj.metadata,
    );
    this.authenticator = new Authenticator(tokens, this.serviceAccounts);
    this.authorizer = new Authorizer(storeSource(store));
    this.unsubscribe = store.onEvent((key) => {
      if (rbacKeys.has(key)) this.authorizer.rbac.invalidate();
    });
  }

  stop() {
    this.unsubscribe();
  }

  /** 403 unless allowed */
  check(a: Attributes) {
    const d = this.authorizer.authorize(a);
    if (!d.allowed) throw forbidden(a, d.reason);
  }

  /**
   * The user a request runs as, authorized for what it asks. Throws 401, 403, or an
   * ImpersonationError (kube-apiserver's 500 for groups without a user).
   * @param path the URL's path, decoded, as received
   * @param trimmed the same without trailing slashes
   */
  admit(req: IncomingMessage, path: string, trimmed: string, query: URLSearchParams): UserInfo {
    const token = bearerToken(req.headers.authorization);
    let user: UserInfo;
    if (token === undefined) {
      if (!anonymousPaths.has(trimmed)) throw errors.unauthorized();
      user = ANONYMOUS;
    } else {
      const found = this.authenticator.authenticateToken(token);
      if (!found) throw errors.unauthorized();
      user = found.user;
    }
    if (hasImpersonation(req)) {
      const requests = impersonationRequests(req.headersDistinct);
      if (!isMaster(user)) for (const r of requests) this.check({ ...impersonationAttributes(r), user });
      user = impersonatedUser(requests);
    }
    if (!isMaster(user)) this.check({ ...requestAttributes(req.method ?? 'GET', path, query), user });
    return user;
  }
}
