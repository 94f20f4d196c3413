import { isDeepStrictEqual } from 'node:util';
// Small helpers over plain Kubernetes objects.
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
