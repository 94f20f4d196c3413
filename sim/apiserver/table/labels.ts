// String forms of label maps and selectors, as labels.FormatLabels and
// metav1.LabelSelectorAsSelector(...).String() print them.
import { dig, list, rec, recs, str } from './fields.js';

/** "a=1,b=2" sorted by key, or "<none>". */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(rec(labels))
    .map(([k, v]) => `${k}=${str(v)}`)
    .sort();
  return entries.length ? entries.join(',') : '<none>';
}

/** The selector's canonical string; "" for a nil or empty selector, undefined if invalid. */
export function selectorString(selector: unknown): string | undefined {
  const s = rec(selector);
  const reqs: Array<[string, string]> = Object.entries(rec(s.matchLabels)).map(([k, v]) => [
    k,
    `${k}=${str(v)}`,
  ]);
  for (const e of recs(s.matchExpressions)) {
    const key = str(e.key);
    const r = requirement(key, str(e.operator), list(e.values).map(str));
    if (r === undefined) return undefined;
    reqs.push([key, r]);
  }
  // Requirements are ordered by key; the sort is stable so same-key entries keep their order.
  return reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
}

// Mirrors labels.NewRequirement's checks: set operators need values, existence ones none.
function requirement(key: string, op: string, values: string[]): string | undefined {
  const vals = [...values].sort().join(',');
  const hasValues = values.length > 0;
  if (op === 'In' && hasValues) return `${key} in (${vals})`;
  if (op === 'NotIn' && hasValues) return `${key} notin (${vals})`;
  if (op === 'Exists' && !hasValues) return key;
  if (op === 'DoesNotExist' && !hasValues) return `!${key}`;
  return undefined;
}

/** metav1.FormatLabelSelector: "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(selector: unknown): string {
  const s = selectorString(selector);
  if (s === undefined) return '<error>';
  return s || '<none>';
}

/** "name1,name2" and "image1,image2" for a pod template's containers. */
export function containerCells(podSpecOwner: unknown, ...path: string[]): [string, string] {
  const containers = recs(dig(podSpecOwner, ...path, 'containers'));
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}
