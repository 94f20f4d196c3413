// What legitimately differs between two API servers running the same scenario: uids,
// timestamps, resourceVersions, generated name suffixes, managedFields (the embedded server
// does not track field managers) and server addresses. Everything else must be equal.
import type { Reply } from './backends.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const RV_KEYS = new Set(['resourceVersion', 'uid', 'creationTimestamp']);

/** suffixes a server generates: generateName's five characters, the SA token volume's name */
function names(s: string): string {
  return (
    s
      .replace(/\bkube-api-access-[a-z0-9]{5}\b/g, 'kube-api-access-<gen>')
      .replace(/\b(127\.0\.0\.1|localhost):\d+\b/g, '<server>')
      // each back end has a CA of its own
      .replace(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g, '<certificate>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
  );
}

export interface NormaliseOptions {
  /** generateName prefixes in use: "<prefix>abcde" becomes "<prefix><gen>" */
  generated?: string[];
  /** also replace every run of digits in these keys' string values (resourceVersions in messages) */
  digitsIn?: string[];
}

export function normalise(v: unknown, o: NormaliseOptions = {}, key = ''): any {
  if (Array.isArray(v)) return v.map((x) => normalise(x, o, key));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'managedFields') continue;
      out[k] = RV_KEYS.has(k) && typeof x === 'string' ? `<${k}>` : normalise(x, o, k);
    }
    return out;
  }
  if (typeof v !== 'string') return v;
  if (UUID.test(v)) return '<uid>';
  // a Table's Age cell ticks between the two back ends' requests
  if (key === 'cells' && /^\d+s$/.test(v)) return '<age>';
  if (TIME.test(v)) return '<time>';
  let s = names(v);
  for (const p of o.generated ?? [])
    s = s.replace(
      new RegExp(`\\b${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z0-9]{5}\\b`, 'g'),
      `${p}<gen>`,
    );
  if (o.digitsIn?.includes(key)) s = s.replace(/\d+/g, '<n>');
  return s;
}

/**
 * A known difference (KNOWN_DIFFERENCES.md): the embedded server's list items carry their
 * kind and apiVersion, kube-apiserver's typed lists leave them out.
 */
export function withoutItemKinds(body: any) {
  if (!body || !Array.isArray(body.items)) return body;
  return { ...body, items: body.items.map(({ kind: _k, apiVersion: _a, ...rest }: any) => rest) };
}

/** headers whose value a client acts on */
const HEADERS = ['content-type', 'retry-after', 'warning'];

/** code, the headers that matter and the normalised body of a reply */
export function seen(r: Reply, o: NormaliseOptions = {}) {
  const headers: Record<string, unknown> = {};
  for (const h of HEADERS) if (r.headers[h] !== undefined) headers[h] = r.headers[h];
  return { code: r.code, headers, body: normalise(withoutItemKinds(r.body) ?? r.text, o) };
}
