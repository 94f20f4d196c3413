// What a request asks to do, as kube-apiserver's RequestInfoFactory reads it from the URL
// alone (before any routing): the verb, and for /api and /apis paths the group, version,
// resource, subresource, namespace and name; any other path is a non-resource request.
// Authorization decides on these attributes. Pure.
import { parseFieldSelector } from '../../rules/kube/fieldSelector.js';
import type { UserInfo } from '../core/context.js';

export interface RequestAttributes {
  verb: string;
  resourceRequest: boolean;
  /** the URL path, for non-resource requests */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface Attributes extends RequestAttributes {
  user: UserInfo;
}

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** IsValidPathSegmentName: what may stand as one URL path segment */
export function isPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/** watch=… as the query decoder reads a bool: present and not "0" or "false" (any case) */
export function watchRequested(q: URLSearchParams): boolean {
  const v = q.get('watch');
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

function nameFromFieldSelector(q: URLSearchParams): string {
  const s = q.get('fieldSelector');
  if (!s) return '';
  try {
    for (const r of parseFieldSelector(s))
      if (r.field === 'metadata.name' && r.operator === '=' && isPathSegmentName(r.value)) return r.value;
  } catch {
    // an unparsable selector leaves the request a list without a name
  }
  return '';
}

/**
 * @param path the decoded URL path, as received (trailing slash kept)
 */
export function requestAttributes(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const info: RequestAttributes = {
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  let parts = trimmed ? trimmed.split('/') : [];
  if (parts.length < 3) return info;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  parts = parts.slice(1);
  if (prefix === 'apis') {
    if (parts.length < 3) return info;
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.resourceRequest = true;
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  let proxy = false;
  if (parts[0] === 'watch' || parts[0] === 'proxy') {
    // kube-apiserver refuses /watch alone (500); here it is left a non-verb request that RBAC denies
    if (parts.length < 2) return { ...info, verb: parts[0] };
    info.verb = parts[0];
    proxy = parts[0] === 'proxy';
    parts = parts.slice(1);
  } else info.verb = methodVerbs[method.toUpperCase()] ?? '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1];
      if (parts.length > 2 && parts[2] !== 'status' && parts[2] !== 'finalize') parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && !proxy) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  if (!info.name && info.verb === 'get') {
    info.verb = watchRequested(query) ? 'watch' : 'list';
    info.name = nameFromFieldSelector(query);
  }
  if (!info.name && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
