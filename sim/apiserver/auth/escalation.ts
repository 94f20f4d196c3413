// RBAC's escalation prevention (ConfirmNoEscalation and policy_comparator): a user may create
// or change a role, or bind one, only if their own rules already cover every permission it
// grants. The granted rules are broken down to one verb, group, resource and name each; every
// piece must be covered by one rule the user holds; the missing ones are named, compacted and
// sorted, in kube-apiserver's words. Pure.
import { goQuote } from '../../../lib/kube/labelSelector.js';
import type { UserInfo } from '../core/context.js';
import type { PolicyRule } from './rules.js';

const has = (set: string[] | undefined, v: string) => !!set?.includes(v);
const hasAll = (set: string[] | undefined, want: string[] | undefined) =>
  (want ?? []).every((w) => has(set, w));

export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** one rule per (group, resource, verb[, name]) and per (url, verb) */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs ?? []) {
        if (rule.resourceNames?.length)
          for (const name of rule.resourceNames)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourcesCover(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

/** does the owner's rule cover a broken-down rule */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCover(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) =>
    (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)),
  );
  const names = sub.resourceNames?.length
    ? !owner.resourceNames?.length || hasAll(owner.resourceNames, sub.resourceNames)
    : !owner.resourceNames?.length;
  return verbs && groups && resources && names && urls;
}

/** the broken-down granted rules no owner rule covers */
export function uncovered(owner: PolicyRule[], granted: PolicyRule[]): PolicyRule[] {
  return granted.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

/** simple rules (one group, one resource, at most one name) that differ only by verb, merged */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames?.length ?? 0) <= 1 &&
      !r.nonResourceURLs?.length &&
      r.apiGroups?.length === 1 &&
      r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (!existing) simple.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
    else for (const v of r.verbs ?? []) if (!existing.verbs!.includes(v)) existing.verbs!.push(v);
  }
  return [...out, ...simple.values()];
}

const goList = (l: string[]) => `[${l.map(goQuote).join(' ')}]`;

/** rbacv1helpers.CompactString */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** ConfirmNoEscalation's error text, or undefined when the owner's rules cover the granted ones */
export function escalationError(
  user: UserInfo,
  owner: PolicyRule[],
  granted: PolicyRule[],
  resolutionErrors = '',
): string | undefined {
  const missing = uncovered(owner, granted);
  if (!missing.length) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort(byteOrder);
  const msg = `user ${goQuote(user.username)} (groups=${goList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  return resolutionErrors ? `${msg}; resolution errors: [${resolutionErrors}]` : msg;
}
