// Patch engine for the embedded API server: JSON patch, JSON merge patch and Kubernetes
// strategic merge patch, applied to plain JSON objects. Server-side apply is not here;
// patchTypeFromContentType only recognises its media type so the caller can route it.
import type { PatchType } from './content-type.js';
import { PatchError } from './errors.js';
import { applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { type PatchTarget, rootSchema } from './schema.js';
import { applyStrategicPatch } from './strategic.js';

export { type PatchType, patchTypeFromContentType } from './content-type.js';
export { PatchError } from './errors.js';
export { type PatchTarget, acceptedPatchMediaTypes, supportsStrategic } from './schema.js';

/**
 * Applies `patch` to `original` and returns a new object; neither input is modified.
 * Throws PatchError for an unusable patch. For strategic patches the caller checks
 * supportsStrategic(target) first: the server answers 415 for custom resources.
 */
export function applyPatch(original: unknown, patch: unknown, type: PatchType, target: PatchTarget): unknown {
  switch (type) {
    case 'json':
      return applyJsonPatch(original, patch);
    case 'merge':
      return applyMergePatch(original, patch);
    case 'strategic':
      return applyStrategicPatch(original, patch, rootSchema(target));
    default:
      throw new PatchError(`unsupported patch type: ${String(type)}`);
  }
}
