import { describe, expect, it } from 'vitest';
import { compileSchema, prune, validateAgainst } from './schema.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', default: 0 },
        note: { type: 'string' },
        maybe: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

describe('prune', () => {
  it.each([
    ['drops undeclared fields', { spec: { note: 'a', extra: 1 } }, { spec: { note: 'a' } }],
    ['drops nulls of fields that are not nullable', { spec: { note: null } }, { spec: {} }],
    ['keeps nulls of nullable fields', { spec: { maybe: null } }, { spec: { maybe: null } }],
    ['drops null map values', { spec: { labels: { a: 'x', b: null } } }, { spec: { labels: { a: 'x' } } }],
    ['keeps what the schema preserves', { spec: { free: { any: [1] } } }, { spec: { free: { any: [1] } } }],
    ['never touches metadata', { metadata: { name: 'x', extra: 1 } }, { metadata: { name: 'x', extra: 1 } }],
  ])('%s', (_name, obj, want) => {
    prune(obj, schema);
    expect(obj).toEqual(want);
  });
});

describe('validation with defaults', () => {
  it('fills in a default the schema declares, and still reports type errors', () => {
    const v = compileSchema(structuredClone(schema));
    const obj: any = { spec: { note: 'a' } };
    expect(validateAgainst(v, obj)).toEqual([]);
    expect(obj.spec.size).toBe(0);
    const bad = validateAgainst(v, { spec: { size: 'big' } });
    expect(bad.map((c) => c.field)).toEqual(['spec.size']);
  });
});
