// Template hashes as the real controllers print them: FNV-1a (32 bit) over a canonical
// serialisation, written in decimal and mapped onto the apiserver's "safe" alphabet
// (no vowels, no look-alikes), so names like web-6b5c9d7f8 never spell words.
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: each character replaced by SAFE[charCode % len]. */
export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE[ch.codePointAt(0)! % SAFE.length];
  return out;
}

/** JSON with sorted keys; undefined dropped; Dates as the apiserver prints them. */
export function canonicalJson(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString().replace('.000Z', 'Z'));
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The pod-template-hash of a template. collisionCount is mixed in, as the real
 * controller does, so a hash collision can be escaped by bumping it.
 */
export function templateHash(template: unknown, collisionCount?: number): string {
  const salt = collisionCount ? `#${collisionCount}` : '';
  return safeEncode(String(fnv1a32(canonicalJson(template) + salt)));
}
