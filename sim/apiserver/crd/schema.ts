// Structural-schema handling for custom resources: validation with Ajv (a real
// JSON-schema validator, with the OpenAPI and x-kubernetes-* extensions allowed) and
// pruning of unknown fields, producing the real apiserver's field errors.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { StatusCause } from '../http/errors.js';

type Schema = Record<string, any>;

// useDefaults: the schema's defaults are filled in as the real server's structural defaulting
// does, on the object that is then stored
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  validateFormats: false,
  validateSchema: false,
  useDefaults: true,
});

/** Rewrite Kubernetes' schema dialect into plain JSON schema Ajv understands. */
function toJsonSchema(s: Schema): Schema {
  if (typeof s !== 'object' || s === null) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' || k === 'patternProperties')
      out[k] = Object.fromEntries(
        Object.entries(v as Schema).map(([pk, pv]) => [pk, toJsonSchema(pv as Schema)]),
      );
    else if (k === 'items' || k === 'additionalProperties' || k === 'not')
      out[k] = typeof v === 'object' ? toJsonSchema(v as Schema) : v;
    else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') out[k] = (v as Schema[]).map(toJsonSchema);
    else if (!k.startsWith('x-kubernetes-')) out[k] = v;
  }
  if (s['x-kubernetes-int-or-string']) {
    delete out.type;
    if (!out.anyOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (s.nullable && out.type) out.type = [out.type, 'null'].flat();
  delete out.nullable;
  return out;
}

export function compileSchema(openAPIV3Schema: Schema): ValidateFunction {
  const root = toJsonSchema(openAPIV3Schema);
  // apiVersion, kind and metadata are the server's business, whatever the schema says
  if (root.properties) {
    delete root.properties.metadata;
    delete root.properties.apiVersion;
    delete root.properties.kind;
  }
  return ajv.compile(root);
}

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function valueAt(obj: unknown, instancePath: string): unknown {
  let cur: any = obj;
  for (const p of instancePath.split('/').slice(1)) cur = cur?.[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  return cur;
}

function toCause(e: ErrorObject, obj: unknown): StatusCause | undefined {
  const value = valueAt(obj, e.instancePath);
  const field = fieldPath(e.instancePath);
  const shown = JSON.stringify(value);
  switch (e.keyword) {
    case 'required': {
      const f = fieldPath(e.instancePath, (e.params as any).missingProperty);
      return { reason: 'FieldValueRequired', message: 'Required value', field: f };
    }
    case 'type':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${typeof value === 'object' ? (Array.isArray(value) ? 'array' : 'object') : typeof value === 'number' ? 'number' : typeof value}": ${field} in body must be of type ${(e.params as any).type}: ${shown}`,
        field,
      };
    case 'enum':
      return {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${shown}: supported values: ${((e.params as any).allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        field,
      };
    case 'minimum':
    case 'exclusiveMinimum':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${shown}: ${field} in body should be greater than or equal to ${(e.params as any).limit}`,
        field,
      };
    case 'maximum':
    case 'exclusiveMaximum':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${shown}: ${field} in body should be less than or equal to ${(e.params as any).limit}`,
        field,
      };
    case 'anyOf':
    case 'oneOf':
    case 'if':
      return undefined; // the branch errors say more
    default:
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${shown}: ${field} in body ${e.message ?? 'is invalid'}`,
        field,
      };
  }
}

export function validateAgainst(validate: ValidateFunction, obj: unknown): StatusCause[] {
  if (validate(obj)) return [];
  const seen = new Set<string>();
  const out: StatusCause[] = [];
  for (const e of validate.errors ?? []) {
    const c = toCause(e, obj);
    if (!c) continue;
    const key = `${c.field}|${c.message}`;
    if (!seen.has(key)) out.push(c);
    seen.add(key);
  }
  return out;
}

/**
 * Drop fields the schema does not declare, unless it preserves unknown fields, and null
 * values of fields that are not nullable (as the real server does before defaulting, so
 * a Go client's `"field": null` is read as absent). Mutates obj.
 */
/** Drop fields the schema does not know; `dropped` collects their paths (for the warnings). */
export function prune(
  obj: unknown,
  schema: Schema | undefined,
  root = true,
  dropped: string[] = [],
  path = '',
): void {
  if (!schema || typeof obj !== 'object' || obj === null) return;
  if (Array.isArray(obj)) {
    for (const [i, item] of obj.entries()) prune(item, schema.items, false, dropped, `${path}[${i}]`);
    return;
  }
  const o = obj as Record<string, unknown>;
  const props: Schema | undefined = schema.properties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(o)) {
    if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const sub: Schema | undefined =
      props && key in props
        ? props[key]
        : typeof schema.additionalProperties === 'object'
          ? schema.additionalProperties
          : undefined;
    const at = path ? `${path}.${key}` : key;
    if (sub) {
      if (o[key] === null && sub.nullable !== true) delete o[key];
      else prune(o[key], sub, false, dropped, at);
    } else if (!preserve && (props || schema.type === 'object') && schema.additionalProperties !== true) {
      delete o[key];
      dropped.push(at);
    }
  }
}
