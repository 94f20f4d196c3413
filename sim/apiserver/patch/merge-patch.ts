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

/**
 * Objects merge key by key, null removes a key, anything else replaces the target. As in
 * kube-apiserver's merge (evanphx/json-patch v4), a value that lands where there was no
 * object has its nulls pruned all the way down, inside arrays too (null elements dropped):
 * `{"cells":[{"t":null}]}` stores `{"cells":[{}]}`, not a null. Only an array replacing an
 * object is taken as it is.
 */
function mergeValue(target: Json | undefined, patch: Json): Json {
  if (Array.isArray(patch)) return isObject(target) ? patch : pruneNulls(patch);
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergeValue(getOwn(result, key), value));
  }
  return result;
}

function pruneNulls(v: Json): Json {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(pruneNulls);
  if (!isObject(v)) return v;
  for (const [k, x] of Object.entries(v)) {
    if (x === null) delete v[k];
    else setOwn(v, k, pruneNulls(x));
  }
  return v;
}
