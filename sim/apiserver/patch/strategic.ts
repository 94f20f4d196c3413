// Kubernetes strategic merge patch (application/strategic-merge-patch+json) as the server
// applies it: maps merge, `null` deletes a key, lists replace unless the schema tags them
// patchStrategy=merge, in which case lists of objects merge by their patchMergeKey and
// lists of scalars merge as sets. Follows StrategicMergeMapPatch in
// k8s.io/apimachinery/pkg/util/strategicpatch (MergeParallelList and IgnoreUnmatchedNulls on).
import { PatchError } from './errors.js';
import { type Json, type JsonObject, clone, getOwn, goTypeName, isObject, setOwn } from './json.js';
import { type FieldMeta, type TypeSchema, childSchema, fieldMeta } from './schema.js';
import { DROP, clean, cleanList, cleanMap } from './strategic-clean.js';
import {
  applyMapDirective,
  applyRetainKeys,
  deleteFromPrimitiveList,
  directiveField,
  requireKey,
  splitListDirectives,
} from './strategic-directives.js';
import { DELETE_PREFIX, ORDER_PREFIX, PATCH } from './strategic-keys.js';
import { normalizeOrder, validateOrder } from './strategic-order.js';

export function applyStrategicPatch(original: unknown, patch: unknown, schema: TypeSchema): JsonObject {
  if (!isObject(patch)) {
    throw new PatchError(
      `json: cannot unmarshal ${goTypeName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  const base = isObject(original) ? clone(original) : {};
  return mergeMap(base, clone(patch), schema);
}

/** Merges `patch` into `original` in place; both are private clones. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: TypeSchema | undefined): JsonObject {
  if (Object.hasOwn(patch, PATCH)) return applyMapDirective(patch);
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);
  for (const [key, value] of Object.entries(patch)) mergeField(original, key, value, schema);
  return original;
}

function mergeField(original: JsonObject, key: string, value: Json, schema: TypeSchema | undefined): void {
  if (key.startsWith(DELETE_PREFIX)) {
    deleteFromPrimitiveList(original, key, value);
    return;
  }
  if (value === null) {
    delete original[key];
    return;
  }
  const current = getOwn(original, key);
  const meta = fieldMeta(schema, key);
  if (isObject(current) && isObject(value) && meta?.strategy !== 'replace') {
    setOwn(original, key, mergeMap(current, value, childSchema(meta)));
  } else if (Array.isArray(current) && Array.isArray(value)) {
    setOwn(
      original,
      key,
      meta?.strategy === 'merge' ? mergeList(current, value, meta, key) : cleanList(value),
    );
  } else {
    // New field, changed type, scalar, or a map with patchStrategy=replace.
    setCleaned(original, key, value);
  }
}

function setCleaned(original: JsonObject, key: string, value: Json): void {
  const cleaned = clean(value);
  if (cleaned === DROP) delete original[key];
  else setOwn(original, key, cleaned);
}

function mergeList(original: Json[], patch: Json[], meta: FieldMeta, field: string): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  if (elementKind(original, patch) !== 'object') {
    return normalizeOrder([...new Set([...original, ...patch])], patch, original);
  }
  if (!meta.key) throw new PatchError(`cannot merge lists without merge key for ${field}`);
  return mergeObjects(original, patch, meta.key, childSchema(meta));
}

/** All elements of a merging list must share one JSON type, and not be lists. */
function elementKind(...lists: Json[][]): string {
  let kind: string | undefined;
  for (const item of lists.flat()) {
    const k = Array.isArray(item) ? 'array' : item === null ? 'null' : typeof item;
    if (k === 'array') throw new PatchError('lists of lists are not supported', 422);
    if (kind !== undefined && kind !== k) {
      throw new PatchError(`list element types are not identical: ${JSON.stringify(lists)}`);
    }
    kind = k;
  }
  return kind ?? 'object';
}

function mergeObjects(original: Json[], patch: Json[], key: string, schema: TypeSchema | undefined): Json[] {
  const { items, deleted, replace } = splitListDirectives(patch, key);
  if (replace) return cleanList(items);
  const base = original.filter((item) => !deleted.includes(getOwn(item as JsonObject, key) as Json));
  const merged = [...base];
  for (const item of items) {
    const value = requireKey(item, key);
    const index = merged.findIndex((other) => getOwn(other as JsonObject, key) === value);
    if (index >= 0) merged[index] = mergeMap(merged[index] as JsonObject, item, schema);
    else merged.push(cleanMap(item));
  }
  return normalizeOrder(merged, items, base, key);
}

/** `$setElementOrder/<field>` merges the patch list first, then orders the result. */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: TypeSchema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    const field = directiveField(key, ORDER_PREFIX);
    if (!Array.isArray(order)) {
      throw new PatchError(`invalid patch format of setElementOrder list: ${key} must be a list`);
    }
    reorderField(original, patch, field, order, fieldMeta(schema, field));
  }
}

function reorderField(
  original: JsonObject,
  patch: JsonObject,
  field: string,
  order: Json[],
  meta?: FieldMeta,
) {
  const current = listAt(original, field);
  const incoming = listAt(patch, field);
  // Only merging lists have an order to keep; other lists are replaced by the main loop.
  if ((current === undefined && incoming === undefined) || meta?.strategy !== 'merge') return;
  delete patch[field];
  validateOrder(incoming ?? [], order, meta.key);
  let merged: Json[];
  if (current === undefined) merged = cleanList(incoming ?? []);
  else merged = incoming === undefined ? current : mergeList(current, incoming, meta, field);
  const key = merged.some(isObject) ? meta.key : undefined;
  setOwn(original, field, normalizeOrder(merged, order, current ?? [], key));
}

function listAt(map: JsonObject, field: string): Json[] | undefined {
  const value = getOwn(map, field);
  if (value === undefined || Array.isArray(value)) return value;
  throw new PatchError(
    `expected a list for ${field} alongside ${ORDER_PREFIX}/${field}, got ${goTypeName(value)}`,
  );
}
