// Who is asking, and with what Palisade acts for them on each cluster:
// - token: the person's own Kubernetes token (pasted at sign-in, or a script's bearer token),
//   sent as it is to every cluster that accepted it;
// - impersonate: Palisade's own credentials plus Impersonate-* headers (OIDC sign-in), so the
//   cluster's RBAC decides and its audit log names the person;
// - console: Palisade's own kubeconfig credentials, for the one-time sign-in link printed to
//   whoever started Palisade on loopback (they hold that kubeconfig already).
import type { ClusterId } from '../../lib/console/protocol.js';
import type { Principal } from '../../lib/auth/impersonation.js';

export type { Principal };

export type Credential =
  | { kind: 'console' }
  | { kind: 'token'; token: string }
  | { kind: 'impersonate'; as: Principal };

export type SignInMethod = 'token' | 'oidc' | 'link' | 'bearer';

export interface Identity {
  method: SignInMethod;
  credential: Credential;
  /** who the person is on each cluster that accepted them (a token is valid where it was issued) */
  principals: Map<ClusterId, Principal>;
  /** set for a browser session: its store key (a hash of the cookie's id, never the id) */
  sessionKey?: string;
}

/** The name shown and recorded for an identity on a cluster (its first cluster's, if not signed in there). */
export function nameOn(id: Identity, cluster?: ClusterId): string {
  const p = (cluster && id.principals.get(cluster)) || id.principals.values().next().value;
  return p?.username ?? '(unknown)';
}
