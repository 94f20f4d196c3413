// A refusal in words for the person in front of the console: who they are to the cluster (name
// and groups) and what they may not do, e.g. "you (oidc:alice, groups oidc:shop-viewers) may not
// delete pods in shop". The cluster's exact 403 text stays available beside it.
import { type AccessAttributes, qualifiedResource } from './forbidden.js';

export function whoWords(user: string, groups: readonly string[]): string {
  const shown = groups.filter((g) => g !== 'system:authenticated');
  return shown.length ? `you (${user}, groups ${shown.join(', ')})` : `you (${user})`;
}

export function mayNotWords(user: string, groups: readonly string[], a: AccessAttributes): string {
  const who = whoWords(user, groups);
  if ('path' in a) return `${who} may not ${a.verb} ${a.path}`;
  const what = qualifiedResource(a.group, a.subresource ? `${a.resource}/${a.subresource}` : a.resource);
  const named = a.name ? ` "${a.name}"` : '';
  const where = a.namespace ? ` in ${a.namespace}` : '';
  return `${who} may not ${a.verb} ${what}${named}${where}`;
}
