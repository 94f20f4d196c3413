// Patch values that land in the result without being merged (new fields, replaced lists,
// appended list items) go through the same cleanup as on the server: maps carrying
// `$patch` are dropped, nulls inside maps are discarded, and directive keys are removed
// because the server's typed decoding never keeps them.
import { type Json, type JsonObject, isObject, setOwn } from './json.js';
import { PATCH, isDirectiveKey } from './strategic-keys.js';

export const DROP = Symbol('drop');

export function clean(value: Json): Json | typeof DROP {
  if (Array.isArray(value)) return cleanList(value);
  if (!isObject(value)) return value;
  return Object.hasOwn(value, PATCH) ? DROP : cleanMap(value);
}

export function cleanList(list: Json[]): Json[] {
  return list.map(clean).filter((v): v is Json => v !== DROP);
}

/** Cleans the fields of a map, keeping the map itself even if it carries `$patch`. */
export function cleanMap(map: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(map)) {
    if (value === null || isDirectiveKey(key)) continue;
    const cleaned = clean(value);
    if (cleaned !== DROP) setOwn(out, key, cleaned);
  }
  return out;
}
