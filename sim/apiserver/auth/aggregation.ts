// ClusterRole aggregation as kube-controller-manager's clusterrole-aggregation controller does
// it: a ClusterRole with an aggregationRule gets the rules of every other ClusterRole matched
// by any of its selectors, roles in name order, each distinct rule once. Pure.
import { type LabelSelector, labelSelectorMatches } from '../../../lib/kube/labelSelector.js';
import { sameValue } from '../core/objects.js';
import type { KubeObject } from '../resources/types.js';
import type { PolicyRule } from './rules.js';

export interface ClusterRoleLike {
  metadata: KubeObject['metadata'];
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } | null;
}

export function isAggregated(role: ClusterRoleLike): boolean {
  return !!role.aggregationRule;
}

/** the rules an aggregated ClusterRole should hold, given every ClusterRole there is */
export function aggregatedRules(target: ClusterRoleLike, all: ClusterRoleLike[]): PolicyRule[] {
  const selectors = target.aggregationRule?.clusterRoleSelectors ?? [];
  const matched = all
    .filter((r) => selectors.some((s) => labelSelectorMatches(s, r.metadata.labels)))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  const out: PolicyRule[] = [];
  for (const r of matched) {
    if (r.metadata.name === target.metadata.name) continue;
    for (const rule of r.rules ?? []) if (!out.some((x) => sameRule(x, rule))) out.push(rule);
  }
  return out;
}

/** semantic equality: an absent list and an empty one are the same */
export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const keys = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;
  return keys.every((k) => sameValue(a[k]?.length ? a[k] : [], b[k]?.length ? b[k] : []));
}

export function sameRules(a: PolicyRule[] | null | undefined, b: PolicyRule[] | null | undefined): boolean {
  const [x, y] = [a ?? [], b ?? []];
  return x.length === y.length && x.every((r, i) => sameRule(r, y[i]));
}
