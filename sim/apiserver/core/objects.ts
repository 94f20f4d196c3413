// Small helpers over plain Kubernetes objects.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../resources/types.js';

export function clone<T>(o: T): T {
  return structuredClone(o);
}

export function nowRfc3339(d = new Date()): string {
  // kube-apiserver serializes metav1.Time at second precision
  return `${d.toISOString().slice(0, 19)}Z`;
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function specOf(o: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** Deep equality that ignores key order (a PUT may reorder keys without changing anything). */
export function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

export function hasFinalizers(o: KubeObject): boolean {
  return (o.metadata.finalizers?.length ?? 0) > 0;
}

/** The real server never stores empty labels, annotations, finalizers or ownerReferences (omitempty). */
export function dropEmptyMeta(o: KubeObject) {
  const m = o.metadata as Record<string, unknown>;
  for (const k of ['labels', 'annotations'])
    if (isObject(m[k]) && Object.keys(m[k]).length === 0) delete m[k];
  for (const k of ['finalizers', 'ownerReferences', 'managedFields'])
    if (Array.isArray(m[k]) && (m[k] as unknown[]).length === 0) delete m[k];
}
