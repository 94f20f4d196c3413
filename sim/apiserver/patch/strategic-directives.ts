// The strategic merge patch directives that are not plain field values: `$patch`,
// `$retainKeys` and the `$deleteFromPrimitiveList/` and `$setElementOrder/` parallel lists.
import { PatchError } from './errors.js';
import { type Json, type JsonObject, describe, getOwn, isObject, isScalar, setOwn } from './json.js';
import { cleanMap } from './strategic-clean.js';
import { DELETE_PREFIX, ORDER_PREFIX, PATCH, RETAIN_KEYS } from './strategic-keys.js';

/** `$patch` inside a map: replace keeps only the patch's own fields, delete empties the
 *  map (the server leaves `{}`, not a missing key). `merge` exists only as a struct tag:
 *  the server rejects it in a patch. */
export function applyMapDirective(patch: JsonObject): JsonObject {
  const directive = patch[PATCH];
  if (directive === 'delete') return {};
  if (directive !== 'replace') throw unknownDirective(directive, patch, 'map');
  const { [PATCH]: _, ...rest } = patch;
  return cleanMap(rest);
}

export function unknownDirective(directive: Json, item: JsonObject, where: 'map' | 'list'): PatchError {
  if (directive === 'merge' && where === 'list') {
    return new PatchError('merging lists cannot yet be specified in the patch');
  }
  return new PatchError(`unknown patch type: ${describe(directive)} in map: ${describe(item)}`);
}

/** `$retainKeys: [...]` clears every field of the live map that the list does not name;
 *  every field the patch sets must be named. */
export function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const keys = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(keys)) throw new PatchError(`invalid patch format of retainKeys: ${describe(keys)}`);
  const retained = new Set<Json>(keys);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_PREFIX) || key.startsWith(ORDER_PREFIX)) continue;
    if (!retained.has(key)) {
      throw new PatchError(`invalid patch format of retainKeys: field "${key}" is not in ${RETAIN_KEYS}`);
    }
  }
  for (const key of Object.keys(original)) if (!retained.has(key)) delete original[key];
}

/** The list field named by a `$prefix/<field>` key. */
export function directiveField(key: string, prefix: string): string {
  const field = key.slice(prefix.length + 1);
  if (key[prefix.length] === '/' && field !== '') return field;
  const what = prefix === DELETE_PREFIX ? 'primitive list' : 'setElementOrder list';
  throw new PatchError(`invalid patch format of ${what}: malformed directive key ${describe(key)}`);
}

/** `$deleteFromPrimitiveList/<field>: [...]` removes every occurrence of those scalars. */
export function deleteFromPrimitiveList(original: JsonObject, key: string, values: Json): void {
  const field = directiveField(key, DELETE_PREFIX);
  if (!Array.isArray(values) || !values.every(isScalar)) {
    throw new PatchError(`invalid patch format of primitive list: ${key} must be a list of scalars`);
  }
  const current = getOwn(original, field);
  // Nothing to delete from is not an error, and must not create the list.
  if (Array.isArray(current))
    setOwn(
      original,
      field,
      current.filter((v) => !(values as Json[]).includes(v)),
    );
}

export interface ListDirectives {
  /** Patch items without a directive, to merge by key. */
  items: JsonObject[];
  /** Merge-key values of `$patch: delete` items. */
  deleted: Json[];
  /** A `{$patch: replace}` item: the list becomes exactly `items`. */
  replace: boolean;
}

export function splitListDirectives(patch: Json[], key: string): ListDirectives {
  const result: ListDirectives = { items: [], deleted: [], replace: false };
  for (const item of patch as JsonObject[]) {
    if (!Object.hasOwn(item, PATCH)) result.items.push(item);
    else if (item[PATCH] === 'delete') result.deleted.push(requireKey(item, key));
    else if (item[PATCH] === 'replace') result.replace = true;
    else throw unknownDirective(item[PATCH], item, 'list');
  }
  return result;
}

/** The merge-key value of a list item; items of a merging list must carry it. */
export function requireKey(item: Json, key: string): Json {
  if (!isObject(item)) throw new PatchError(`expected a map, but received ${describe(item)}`);
  const value = getOwn(item, key);
  if (value === undefined) {
    throw new PatchError(`map: ${describe(item)} does not contain declared merge key: ${key}`);
  }
  return value;
}
