// Impersonate-User / -Group / -Uid / -Extra-* headers as kube-apiserver's impersonation filter
// reads them: each thing to act as is authorized with the verb "impersonate" (users, groups,
// serviceaccounts in the core group; uids and userextras/<key> in authentication.k8s.io), and
// the request then runs as the impersonated user. Every Impersonate-Group header line is one
// group, commas and all (Go's http.Header values); so is every Impersonate-Extra-<key> line.
// Pure.
import type { UserInfo } from '../core/context.js';
import type { RequestAttributes } from './attributes.js';
import { serviceAccountUsername } from './rules.js';

const AUTHN_GROUP_VERSION = 'authentication.k8s.io/v1';

export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  name: string;
  namespace?: string;
  /** UserExtra: the extra key */
  extraKey?: string;
}

/** a request that names groups, extras or a uid but no user: kube-apiserver answers 500 */
export class ImpersonationError extends Error {}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** serviceaccount.SplitUsername: namespace and name of "system:serviceaccount:<ns>:<name>" */
export function splitServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) return undefined;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

/** %v of a core/v1 ObjectReference, as the 500 message prints the requests */
function goReference(r: ImpersonationRequest): string {
  const apiVersion = r.kind === 'UserExtra' || r.kind === 'UID' ? AUTHN_GROUP_VERSION : '';
  return `{${[r.kind, r.namespace ?? '', r.name, '', apiVersion, '', r.extraKey ?? ''].join(' ')}}`;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/**
 * The things a request asks to act as, from its headers as Node's headersDistinct gives them
 * (lower-case names, one value per header line).
 */
export function impersonationRequests(headers: Record<string, string[] | undefined>): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const user = headers['impersonate-user']?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user });
  }
  let others = false;
  for (const g of headers['impersonate-group'] ?? []) {
    others = true;
    out.push({ kind: 'Group', name: g });
  }
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith('impersonate-extra-') || !values) continue;
    others = true;
    const extraKey = unescapeExtraKey(header.slice('impersonate-extra-'.length).toLowerCase());
    for (const v of values) out.push({ kind: 'UserExtra', name: v, extraKey });
  }
  const uid = headers['impersonate-uid']?.[0] ?? '';
  if (uid) {
    others = true;
    out.push({ kind: 'UID', name: uid });
  }
  if (others && !user)
    throw new ImpersonationError(
      `requested [${out.map(goReference).join(' ')}] without impersonating a user`,
    );
  return out;
}

/** the attributes that authorize acting as one thing (verb impersonate) */
export function impersonationAttributes(r: ImpersonationRequest): RequestAttributes {
  const base = {
    verb: 'impersonate',
    resourceRequest: true,
    path: '',
    apiVersion: '',
    subresource: '',
    name: r.name,
  };
  switch (r.kind) {
    case 'ServiceAccount':
      return {
        ...base,
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'serviceaccounts',
        namespace: r.namespace!,
      };
    case 'User':
      return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'users', namespace: '' };
    case 'Group':
      return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'groups', namespace: '' };
    case 'UserExtra':
      return {
        ...base,
        apiGroup: 'authentication.k8s.io',
        apiVersion: 'v1',
        resource: 'userextras',
        subresource: r.extraKey!,
        namespace: '',
      };
    case 'UID':
      return {
        ...base,
        apiGroup: 'authentication.k8s.io',
        apiVersion: 'v1',
        resource: 'uids',
        namespace: '',
      };
  }
}

/** who the request runs as once every impersonation was allowed */
export function impersonatedUser(requests: ImpersonationRequest[]): UserInfo {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let username = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    if (r.kind === 'ServiceAccount') {
      username = serviceAccountUsername(r.namespace!, r.name);
      if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
    } else if (r.kind === 'User') username = r.name;
    else if (r.kind === 'Group') groups.push(r.name);
    else if (r.kind === 'UserExtra') (extra[r.extraKey!] ??= []).push(r.name);
    else if (r.kind === 'UID') uid = r.name;
  }
  if (username !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
      groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  const user: UserInfo = { username, groups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
