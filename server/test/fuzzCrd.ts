// Hostile custom resources that a CustomResourceDefinition's openAPIV3Schema admits: a fast-check
// arbitrary built from the schema itself (deploy/crds/), so whatever a user may write through
// the API — every optional field left out or set, enum values, int32 limits, strings at the
// edges (empty, unicode, path-like, long), maps with odd keys, RFC 3339 times from year 1 to
// 9999 — reaches the code that reads it. Fields the schema does not declare are left out (the
// API server prunes them). Shared by the pure property tests (lib/*/fuzz.test.ts) and the
// controllers' fuzz on the embedded cluster (server/test/fuzzCrds.int.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { hostileString, type Size } from '../trpc/test/fuzzInputs.js';

/** The part of an OpenAPI v3 schema (structural, as CRDs have them) the generator reads. */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

const CRD_DIR = join(import.meta.dirname, '..', '..', 'deploy', 'crds');

/** A CRD of deploy/crds/ by file name, and the schema of its (only) version. */
export function crdSchema(file: string): OpenApiSchema {
  const crd = parseYaml(readFileSync(join(CRD_DIR, file), 'utf8'));
  return crd.spec.versions[0].schema.openAPIV3Schema;
}

export const PROTECTOR_CRD = 'podseidon.kubewharf.io_podprotectors.yaml';
export const FENCE_POLICY_CRD = 'palisade.dev_fencepolicies.yaml';
export const NODE_FENCE_CRD = 'palisade.dev_nodefences.yaml';

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** RFC 3339 times as kube-apiserver's date-time format accepts them, edges included. */
export const dateTime: fc.Arbitrary<string> = fc.oneof(
  fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2040-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => `${d.toISOString().slice(0, 19)}Z`),
  fc.constantFrom(
    '0001-01-01T00:00:00Z',
    '1970-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999Z',
    '2026-01-01T00:00:00.123456Z',
    '2026-01-01T00:00:00+14:00',
    '2026-01-01T00:00:00-12:00',
  ),
);

/** Names as the API server takes them (DNS-1123 subdomains), short and long. */
export const objectName: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 60, max: 253 })
      .map((n) => `${`a${'-b.c'.repeat(Math.ceil(n / 4))}`.slice(0, n - 1)}z`),
  },
);

/** Label keys and values the API server validates (an optional prefix, 63-character names). */
const labelName = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
export const labelKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: labelName },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,30}[a-z0-9])?$/), labelName)
      .filter(([p]) => !p.includes('..') && !p.includes('.-') && !p.includes('-.'))
      .map(([p, n]) => `${p}/${n}`),
  },
);
export const labelValue: fc.Arbitrary<string> = fc.oneof(fc.constant(''), labelName);

export interface CrdArbitraryOptions {
  size: Size;
  /** what metadata holds (the schema only says "object") */
  metadata: fc.Arbitrary<Record<string, unknown>>;
  /** longest generated array (default 6) */
  maxItems?: number;
}

function stringOf(s: OpenApiSchema, o: CrdArbitraryOptions): fc.Arbitrary<string> {
  if (s.enum) return fc.constantFrom(...(s.enum as string[]));
  if (s.format === 'date-time') return dateTime;
  return hostileString(o.size);
}

function integerOf(s: OpenApiSchema): fc.Arbitrary<number> {
  const wide = s.format === 'int32' ? INT32 : { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
  const min = Math.max(wide.min, s.minimum ?? wide.min);
  const max = Math.min(wide.max, s.maximum ?? wide.max);
  const edges = [min, max, 0, 1, -1, 2, 3, 100].filter((n) => n >= min && n <= max);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...edges) },
    { weight: 3, arbitrary: fc.integer({ min: Math.max(min, -10), max: Math.min(max, 10) }) },
    { weight: 2, arbitrary: fc.integer({ min: Math.max(min, INT32.min), max: Math.min(max, INT32.max) }) },
  );
}

/** Keys of a free-form map: hostile strings (never a prototype-polluting one: JSON keeps those as data). */
function mapKey(o: CrdArbitraryOptions): fc.Arbitrary<string> {
  return fc.oneof(hostileString({ ...o.size, string: Math.min(o.size.string, 300) }), labelKey);
}

/** An arbitrary for one schema node. */
export function fromSchema(s: OpenApiSchema, o: CrdArbitraryOptions, depth = 0): fc.Arbitrary<unknown> {
  const value = nodeOf(s, o, depth);
  return s.nullable
    ? fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) })
    : value;
}

function nodeOf(s: OpenApiSchema, o: CrdArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if (s['x-kubernetes-int-or-string'])
    return fc.oneof(
      integerOf({ format: 'int32' }),
      fc.constantFrom('0%', '1%', '50%', '100%', '101%', '1000%', '-1%', '0', '3', '%', ''),
      hostileString(o.size),
    );
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.properties) return fc.jsonValue({ maxDepth: 3 });
  switch (s.type) {
    case 'string':
      return stringOf(s, o);
    case 'integer':
      return integerOf(s);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return arrayOf(s, o, depth);
    default:
      return objectOf(s, o, depth);
  }
}

function arrayOf(s: OpenApiSchema, o: CrdArbitraryOptions, depth: number): fc.Arbitrary<unknown[]> {
  const item = s.items ? fromSchema(s.items, o, depth + 1) : fc.jsonValue({ maxDepth: 2 });
  const maxLength = o.maxItems ?? 6;
  const keys = s['x-kubernetes-list-type'] === 'map' ? s['x-kubernetes-list-map-keys'] : undefined;
  if (s['x-kubernetes-list-type'] === 'set')
    return fc.uniqueArray(item, { maxLength, selector: (v) => JSON.stringify(v) });
  // a map list: its keys are unique, as the API server insists
  if (keys)
    return fc.uniqueArray(item, {
      maxLength,
      selector: (v) => JSON.stringify(keys.map((k) => (v as any)?.[k])),
    });
  return fc.array(item, { maxLength });
}

function objectOf(s: OpenApiSchema, o: CrdArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if (!s.properties) {
    const extra = s.additionalProperties;
    if (extra && typeof extra === 'object')
      return fc
        .array(fc.tuple(mapKey(o), fromSchema(extra, o, depth + 1)), { maxLength: o.maxItems ?? 6 })
        .map((entries) => Object.fromEntries(entries));
    return fc.constant({});
  }
  const required = new Set(s.required ?? []);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, sub] of Object.entries(s.properties))
    fields[k] = depth === 0 && k === 'metadata' ? o.metadata : fromSchema(sub, o, depth + 1);
  const requiredKeys = Object.keys(fields).filter(
    (k) => required.has(k) || (depth === 0 && k === 'metadata'),
  );
  return fc.record(fields, { requiredKeys });
}

/** A whole object of a CRD: apiVersion and kind as the API server sets them, the rest from the schema. */
export function crdObject(
  schema: OpenApiSchema,
  apiVersion: string,
  kind: string,
  o: CrdArbitraryOptions,
): fc.Arbitrary<Record<string, unknown>> {
  return (fromSchema(schema, o) as fc.Arbitrary<Record<string, unknown>>).map((v) => ({
    ...v,
    apiVersion,
    kind,
  }));
}

/** metadata as read back from the API server: a name, a namespace if any, labels, annotations. */
export function metadataOf(namespace: string | undefined, size: Size): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      name: objectName,
      ...(namespace !== undefined ? { namespace: fc.constant(namespace) } : {}),
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      generation: fc.nat(),
      creationTimestamp: dateTime,
      labels: fc.dictionary(labelKey, labelValue, { maxKeys: 4 }),
      annotations: fc.dictionary(labelKey, hostileString(size), { maxKeys: 3 }),
      finalizers: fc.array(fc.constantFrom('podseidon.kubewharf.io/generator', 'example.com/x'), {
        maxLength: 2,
      }),
      deletionTimestamp: dateTime,
    },
    { requiredKeys: ['name', ...(namespace !== undefined ? ['namespace' as const] : [])] as never[] },
  );
}
