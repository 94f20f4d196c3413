// Lookups over the merge-key table, and which targets accept strategic merge patch.
import { BUILTIN_GROUPS, type FieldMeta, KINDS, TYPES, type TypeSchema } from './merge-keys.js';

export type { FieldMeta, TypeSchema };

export interface PatchTarget {
  group: string;
  kind: string;
  /** true for kinds served from a CustomResourceDefinition (ResourceInfo.custom). */
  custom?: boolean;
}

export function rootSchema(target: PatchTarget): TypeSchema {
  return TYPES[KINDS[`${target.group}/${target.kind}`] ?? 'Object'];
}

export function fieldMeta(schema: TypeSchema | undefined, field: string): FieldMeta | undefined {
  return schema && Object.hasOwn(schema, field) ? schema[field] : undefined;
}

export function childSchema(meta: FieldMeta | undefined): TypeSchema | undefined {
  return meta?.type ? TYPES[meta.type] : undefined;
}

/** Custom resources have no Go struct to read merge keys from, so the real server answers
 *  415 Unsupported Media Type to a strategic merge patch for them. */
export function supportsStrategic(target: PatchTarget): boolean {
  return !target.custom && BUILTIN_GROUPS.has(target.group);
}

/** Patch media types the server lists in its 415 message, in the server's order. */
export function acceptedPatchMediaTypes(target: PatchTarget): string[] {
  const strategic = supportsStrategic(target) ? ['application/strategic-merge-patch+json'] : [];
  return [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...strategic,
    'application/apply-patch+yaml',
  ];
}
