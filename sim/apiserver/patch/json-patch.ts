// RFC 6902 JSON Patch (application/json-patch+json) on top of fast-json-patch.
import jsonpatch, { type JsonPatchError, type Operation } from 'fast-json-patch';
import { PatchError } from './errors.js';
import { clone, goTypeName } from './json.js';

/** Errors about the shape of an operation: the server fails to decode those (400). */
const SHAPE_ERRORS = new Set([
  'SEQUENCE_NOT_AN_ARRAY',
  'OPERATION_NOT_AN_OBJECT',
  'OPERATION_OP_INVALID',
  'OPERATION_PATH_INVALID',
  'OPERATION_FROM_REQUIRED',
  'OPERATION_VALUE_REQUIRED',
  'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED',
]);

export function applyJsonPatch(original: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw new PatchError(`json: cannot unmarshal ${goTypeName(patch)} into Go value of type jsonpatch.Patch`);
  }
  // Validate every operation before applying any, as the server decodes the whole patch first.
  const shape = jsonpatch.validate(patch as Operation[]);
  if (shape) throw new PatchError(`invalid JSON patch operation ${shape.index ?? 0}: ${shape.message}`);
  // Clone the operations too: fast-json-patch inserts `value` objects by reference.
  const ops = clone(patch) as Operation[];
  try {
    return jsonpatch.applyPatch(clone(original), ops, true, true).newDocument;
  } catch (err) {
    throw toPatchError(err);
  }
}

function toPatchError(err: unknown): PatchError {
  if (!(err instanceof jsonpatch.JsonPatchError)) {
    // fast-json-patch refuses __proto__ paths with a TypeError.
    return new PatchError(err instanceof Error ? err.message : String(err), 422);
  }
  if (SHAPE_ERRORS.has(err.name)) return new PatchError(err.message);
  return new PatchError(applyMessage(err), 422);
}

function applyMessage(err: JsonPatchError): string {
  const op = (err.operation ?? {}) as Partial<Operation> & { from?: string };
  const path = op.path ?? '';
  switch (err.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${op.op} operation does not apply: doc is missing from path: ${op.from}: missing value`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
      return `${op.op} operation does not apply: doc is missing path: ${path}: missing value`;
    default:
      return `${op.op} operation does not apply at ${path}: ${err.message}`;
  }
}
