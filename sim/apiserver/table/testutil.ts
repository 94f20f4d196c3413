// Shared fixtures for the table tests: a pinned clock and object/resource builders.
import type { KubeObject, ObjectMeta, ResourceInfo } from '../resources/types.js';

export const NOW = new Date('2024-05-01T12:00:00Z');

/** An RFC3339 timestamp `seconds` before NOW. */
export function ago(seconds: number): string {
  return new Date(NOW.getTime() - seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

export function obj(
  name: string,
  body: Record<string, unknown> = {},
  meta: Partial<ObjectMeta> = {},
): KubeObject {
  return { metadata: { name, creationTimestamp: ago(3600), ...meta }, ...body };
}

export function resource(kind: string, group = '', extra: Partial<ResourceInfo> = {}): ResourceInfo {
  const plural = `${kind.toLowerCase()}s`;
  return {
    group,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    subresources: [],
    ...extra,
  };
}
