// Who an OIDC sign-in is, from the ID token's claims, mapped the way kube-apiserver's
// AuthenticationConfiguration claimMappings do it: the username claim and the groups claim, each
// with its prefix, so Palisade impersonates exactly the user the cluster would see for the same
// token (RBAC bindings name one person either way).
import { assertableGroups, type Principal } from './impersonation.js';

export interface ClaimMapping {
  usernameClaim: string;
  groupsClaim: string;
  usernamePrefix: string;
  groupsPrefix: string;
  /**
   * The only groups Palisade may assert (prefixed names): its RBAC lets it impersonate these and
   * no others, and kube-apiserver refuses a whole impersonated request that names one more. Unset:
   * any group.
   */
  allowedGroups?: readonly string[];
}

export type MappedClaims =
  | { ok: true; principal: Principal /** the person's groups Palisade does not assert */; leftOut: string[] }
  | { ok: false; reason: string };

export function principalFromClaims(claims: Record<string, unknown>, m: ClaimMapping): MappedClaims {
  const name = claims[m.usernameClaim];
  if (typeof name !== 'string' || !name)
    return {
      ok: false,
      reason: `the ID token has no string claim "${m.usernameClaim}" (auth.oidc.usernameClaim)`,
    };
  if (m.usernameClaim === 'email' && claims.email_verified === false)
    return {
      ok: false,
      reason: 'the ID token says the email address is not verified (email_verified: false)',
    };
  const raw = claims[m.groupsClaim];
  const groups = Array.isArray(raw)
    ? raw.filter((g): g is string => typeof g === 'string')
    : typeof raw === 'string'
      ? [raw]
      : [];
  const username = `${m.usernamePrefix}${name}`;
  if (/^system:/i.test(username))
    return { ok: false, reason: `"${username}" is a name reserved for the cluster's own identities` };
  const all = assertableGroups(groups.map((g) => `${m.groupsPrefix}${g}`));
  // leaving a group out only ever takes rights away: the person acts with fewer bindings
  const allowed = m.allowedGroups && new Set(m.allowedGroups);
  return {
    ok: true,
    principal: {
      username,
      groups: allowed ? all.filter((g) => allowed.has(g)) : all,
      ...(typeof claims.sub === 'string' ? { uid: claims.sub } : {}),
    },
    leftOut: allowed ? all.filter((g) => !allowed.has(g)) : [],
  };
}
