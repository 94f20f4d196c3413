// Tolerant readers for plain-JSON objects: stored objects are untyped, and a printer must
// never throw on a missing or oddly typed field (the real printers read zero values instead).

export type Rec = Record<string, unknown>;

export function rec(v: unknown): Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function recs(v: unknown): Rec[] {
  return list(v).map(rec);
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** Walks a key path; any non-object on the way yields undefined. */
export function dig(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Rec)[key];
  }
  return cur;
}

export function orNone(s: string): string {
  return s === '' ? '<none>' : s;
}

/** intstr.IntOrString.String(): ints print in decimal, strings verbatim. */
export function intOrString(v: unknown): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  return str(v);
}

export function countKeys(v: unknown): number {
  return Object.keys(rec(v)).length;
}
