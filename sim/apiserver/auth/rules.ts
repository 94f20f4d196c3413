// RBAC's rule matching (rbac/v1 helpers): verbs, API groups, resources with subresources and
// "*/sub" wildcards, resource names, non-resource URLs with a trailing "*"; which subject of a
// binding applies to a user; and how an allowing binding is described. Pure.
import type { UserInfo } from '../core/context.js';
import { goQuote } from '../../../lib/kube/labelSelector.js';
import type { RequestAttributes } from './attributes.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

const has = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

export function verbMatches(r: PolicyRule, verb: string): boolean {
  return has(r.verbs, verb);
}

export function apiGroupMatches(r: PolicyRule, group: string): boolean {
  return has(r.apiGroups, group);
}

/** combined is "resource" or "resource/subresource"; "*\/sub" matches that subresource of anything */
export function resourceMatches(r: PolicyRule, combined: string, subresource: string): boolean {
  for (const res of r.resources ?? []) {
    if (res === '*' || res === combined) return true;
    if (
      subresource &&
      res.length === subresource.length + 2 &&
      res.startsWith('*/') &&
      res.endsWith(subresource)
    )
      return true;
  }
  return false;
}

export function resourceNameMatches(r: PolicyRule, name: string): boolean {
  return !r.resourceNames?.length || r.resourceNames.includes(name);
}

export function nonResourceURLMatches(r: PolicyRule, path: string): boolean {
  for (const u of r.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(a: RequestAttributes, r: PolicyRule): boolean {
  if (!verbMatches(r, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceURLMatches(r, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    apiGroupMatches(r, a.apiGroup) &&
    resourceMatches(r, combined, a.subresource) &&
    resourceNameMatches(r, a.name)
  );
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** the first subject of a binding that names this user (a ServiceAccount without namespace: the binding's) */
export function appliesTo(
  user: UserInfo,
  subjects: Subject[] | undefined,
  bindingNamespace: string,
): Subject | undefined {
  for (const s of subjects ?? []) {
    if (s.kind === 'User' && s.name === user.username) return s;
    if (s.kind === 'Group' && user.groups.includes(s.name)) return s;
    if (s.kind === 'ServiceAccount') {
      const ns = s.namespace || bindingNamespace;
      if (ns && user.username === serviceAccountUsername(ns, s.name)) return s;
    }
  }
  return undefined;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount')
    return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** kube-apiserver's description of the binding that allowed a request (SubjectAccessReview reasons) */
export function describeBinding(
  binding: { name: string; namespace?: string; roleRef: RoleRef },
  subject: Subject,
): string {
  const { roleRef } = binding;
  if (!binding.namespace)
    return `ClusterRoleBinding ${goQuote(binding.name)} of ${roleRef.kind} ${goQuote(roleRef.name)} to ${describeSubject(subject, '')}`;
  return `RoleBinding ${goQuote(`${binding.name}/${binding.namespace}`)} of ${roleRef.kind} ${goQuote(roleRef.name)} to ${describeSubject(subject, binding.namespace)}`;
}

/** Go's utilerrors.Aggregate text: one message alone, several deduplicated in brackets */
export function aggregateErrors(messages: string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 1) return unique[0];
  return `[${unique.join(', ')}]`;
}
