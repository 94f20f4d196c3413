// Validation and defaulting of Roles, ClusterRoles and their bindings as kube-apiserver's
// (pkg/apis/rbac/validation, rbac/v1 defaults), with its field paths and messages. Pure.
import { goQuote } from '../../../lib/kube/labelSelector.js';
import type { StatusCause } from '../http/errors.js';
import type { KubeObject } from '../resources/types.js';
import { isPathSegmentName } from './attributes.js';
import { RBAC_GROUP } from './rules.js';

type Obj = Record<string, any>;

const required = (field: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  message: detail ? `Required value: ${detail}` : 'Required value',
  field,
});
const invalid = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${typeof value === 'string' ? goQuote(value) : JSON.stringify(value)}: ${why}`,
  field,
});
const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
  field,
});

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function validateRule(rule: Obj, namespaced: boolean, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!list(rule?.verbs).length) out.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(rule?.nonResourceURLs);
  if (urls.length) {
    if (namespaced)
      out.push(
        invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (list(rule.apiGroups).length || list(rule.resources).length || list(rule.resourceNames).length)
      out.push(
        invalid(
          `${path}.nonResourceURLs`,
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return out;
  }
  if (!list(rule?.apiGroups).length)
    out.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!list(rule?.resources).length)
    out.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  if (list(rule?.resourceNames).length && list(rule.resources).length > 1)
    out.push(required(`${path}.resourceNames`, 'resource names cannot apply to multiple resources'));
  return out;
}

function validateSubject(s: Obj, namespaced: boolean, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const name = typeof s?.name === 'string' ? s.name : '';
  if (!name) out.push(required(`${path}.name`));
  switch (s?.kind) {
    case 'ServiceAccount':
      if (name && (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)))
        out.push(invalid(`${path}.name`, name, subdomainMsg));
      if (s.apiGroup) out.push(notSupported(`${path}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) out.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (!name) out.push(invalid(`${path}.name`, name, `${s.kind.toLowerCase()} name cannot be empty`));
      if (s.apiGroup !== RBAC_GROUP)
        out.push(notSupported(`${path}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      out.push(notSupported(`${path}.kind`, String(s?.kind ?? ''), ['ServiceAccount', 'User', 'Group']));
  }
  return out;
}

function validateBinding(o: Obj, namespaced: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  const ref: Obj = o.roleRef ?? {};
  if (ref.apiGroup !== RBAC_GROUP)
    out.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) out.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) out.push(required('roleRef.name'));
  else if (!isPathSegmentName(ref.name))
    out.push(invalid('roleRef.name', ref.name, "may not contain '/' or '%'"));
  for (const [i, subj] of list(o.subjects).entries())
    out.push(...validateSubject(subj as Obj, namespaced, `subjects[${i}]`));
  return out;
}

export function validateRbac(o: KubeObject, old?: KubeObject): StatusCause[] {
  const obj = o as Obj;
  switch (o.kind) {
    case 'Role':
    case 'ClusterRole':
      return list(obj.rules).flatMap((r, i) => validateRule(r as Obj, o.kind === 'Role', `rules[${i}]`));
    case 'RoleBinding':
    case 'ClusterRoleBinding': {
      const out = validateBinding(obj, o.kind === 'RoleBinding');
      const before = (old as Obj | undefined)?.roleRef;
      if (before && JSON.stringify(refOf(before)) !== JSON.stringify(refOf(obj.roleRef ?? {})))
        out.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${goRoleRef(obj.roleRef ?? {})}: cannot change roleRef`,
          field: 'roleRef',
        });
      return out;
    }
  }
  return [];
}

const refOf = (r: Obj) => ({ apiGroup: r.apiGroup ?? '', kind: r.kind ?? '', name: r.name ?? '' });
/** the internal RoleRef as JSON (Go field names), as the immutable-roleRef message prints it */
const goRoleRef = (r: Obj) => {
  const x = refOf(r);
  return JSON.stringify({ APIGroup: x.apiGroup, Kind: x.kind, Name: x.name });
};

/** rbac/v1 defaults: User and Group subjects and the roleRef are in the RBAC group; rules are never absent */
export function defaultRbac(o: KubeObject) {
  const obj = o as Obj;
  if (o.kind === 'Role' || o.kind === 'ClusterRole') {
    if (!('rules' in obj)) obj.rules = null;
    return;
  }
  if (o.kind !== 'RoleBinding' && o.kind !== 'ClusterRoleBinding') return;
  if (obj.roleRef && typeof obj.roleRef === 'object' && !obj.roleRef.apiGroup)
    obj.roleRef.apiGroup = RBAC_GROUP;
  for (const s of list(obj.subjects) as Obj[])
    if (s && typeof s === 'object' && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group'))
      s.apiGroup = RBAC_GROUP;
}
