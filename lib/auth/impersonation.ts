// The Impersonate-* headers Palisade sends to act as a person signed in through OIDC. One
// Impersonate-Group header per group (kube-apiserver reads every value of a repeated header
// as its own group; a comma-joined value would be one group with a comma in its name), and
// never a "system:" name: those are the cluster's own identities (system:masters is
// cluster-admin), and an identity provider must not be able to hand them out.

export interface Principal {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export type HeaderPairs = [name: string, value: string][];

export class ImpersonationRefused extends Error {}

const SYSTEM = /^system:/i;

/** The groups Palisade will assert for a person: system: groups are dropped, duplicates once. */
export function assertableGroups(groups: readonly string[]): string[] {
  return [...new Set(groups.filter((g) => g && !SYSTEM.test(g)))];
}

export function impersonationHeaders(p: Principal): HeaderPairs {
  if (!p.username) throw new ImpersonationRefused('impersonation needs a user name');
  if (SYSTEM.test(p.username))
    throw new ImpersonationRefused(
      `refusing to impersonate "${p.username}": names starting with "system:" are the cluster's own identities`,
    );
  const out: HeaderPairs = [['Impersonate-User', p.username]];
  if (p.uid) out.push(['Impersonate-Uid', p.uid]);
  for (const g of assertableGroups(p.groups)) out.push(['Impersonate-Group', g]);
  for (const [key, values] of Object.entries(p.extra ?? {}))
    for (const v of values) out.push([`Impersonate-Extra-${encodeURIComponent(key)}`, v]);
  return out;
}
