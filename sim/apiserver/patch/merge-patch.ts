// RFC 7386 JSON Merge Patch (application/merge-patch+json).
import { PatchError } from './errors.js';
import { type Json, type JsonObject, clone, getOwn, goTypeName, isObject, setOwn } from './json.js';

export function applyMergePatch(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) {
    throw new PatchError(
      `json: cannot unmarshal ${goTypeName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  return mergeValue(clone(original) as Json, clone(patch));
}

/** Objects merge key by key, null removes a key, anything else replaces the target. */
function mergeValue(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergeValue(getOwn(result, key), value));
  }
  return result;
}
