// Element order of merged lists. The server keeps the relative order of the items the
// patch names (from $setElementOrder, or the patch list itself) and of the items only the
// live object has, then interleaves the two: a live-only item goes first only when the
// live list already had it before the patch item. Items the live list never had
// therefore land in front of live-only items, as they do on a real cluster.
import { PatchError } from './errors.js';
import { type Json, describe, getOwn, isObject, isScalar } from './json.js';
import { requireKey } from './strategic-directives.js';
import { PATCH } from './strategic-keys.js';

/** Position of `item` in `list`: objects match on the merge key, scalars on value. */
export function indexIn(list: Json[], item: Json, key: string | undefined): number {
  if (!key) return list.indexOf(item);
  const value = isObject(item) ? getOwn(item, key) : undefined;
  return list.findIndex((other) => isObject(other) && getOwn(other, key) === value);
}

/**
 * Orders `merged`: items present in `preferred` follow its order, the others follow
 * `serverOrder`, and both runs are interleaved by their positions in `serverOrder`.
 */
export function normalizeOrder(merged: Json[], preferred: Json[], serverOrder: Json[], key?: string): Json[] {
  const named: Json[] = [];
  const serverOnly: Json[] = [];
  for (const item of merged) {
    if (key) requireKey(item, key);
    (indexIn(preferred, item, key) >= 0 ? named : serverOnly).push(item);
  }
  const left = sortByOrder(serverOnly, serverOrder, key);
  return interleave(left, sortByOrder(named, preferred, key), serverOrder, key);
}

/** Stable sort by position in `order`; items missing from it keep their place at the end. */
function sortByOrder(items: Json[], order: Json[], key: string | undefined): Json[] {
  const rank = (item: Json) => {
    const index = indexIn(order, item, key);
    return index < 0 ? Number.POSITIVE_INFINITY : index;
  };
  return items
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map(({ item }) => item);
}

function interleave(serverOnly: Json[], named: Json[], serverOrder: Json[], key: string | undefined): Json[] {
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length || (i < serverOnly.length && before(serverOnly[i], named[j], serverOrder, key))) {
      out.push(serverOnly[i++]);
    } else {
      out.push(named[j++]);
    }
  }
  return out;
}

function before(a: Json, b: Json, serverOrder: Json[], key: string | undefined): boolean {
  const ia = indexIn(serverOrder, a, key);
  const ib = indexIn(serverOrder, b, key);
  return ia >= 0 && ib >= 0 && ia < ib;
}

/**
 * A `$setElementOrder` list must name list items the way the list merges them (objects
 * holding only the merge key, or scalars), and must not contradict the order of the
 * items in the patch list.
 */
export function validateOrder(patchList: Json[], order: Json[], key: string | undefined): void {
  for (const item of order) {
    if (key) requireKey(item, key);
    else if (!isScalar(item)) throw badOrder(`${describe(item)} is not a scalar`);
  }
  const items = patchList.filter((item) => !(isObject(item) && item[PATCH] === 'delete'));
  let p = 0;
  for (let o = 0; p < items.length && o < order.length; o++) {
    while (p < items.length && isObject(items[p]) && Object.hasOwn(items[p] as object, PATCH)) p++;
    if (p < items.length && same(items[p], order[o], key)) p++;
  }
  while (p < items.length && isObject(items[p]) && Object.hasOwn(items[p] as object, PATCH)) p++;
  if (p < items.length) {
    throw new PatchError(
      `the order in patch list:\n${describe(patchList)}\n doesn't match $setElementOrder list:\n${describe(order)}`,
    );
  }
}

function same(item: Json, wanted: Json, key: string | undefined): boolean {
  return key ? requireKey(item, key) === requireKey(wanted, key) : item === wanted;
}

function badOrder(why: string): PatchError {
  return new PatchError(`invalid patch format of setElementOrder list: ${why}`);
}
