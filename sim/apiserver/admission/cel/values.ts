// JSON values as kube-apiserver hands them to CEL. It converts objects to unstructured
// maps, whose JSON decoder keeps a whole number that fits int64 as int64 and any other as
// float64; CEL sees int and double. JavaScript has one number type, so whole numbers become
// BigInt (the CEL library's int) and the rest stay numbers (double). Maps are built without
// a prototype, so a key such as "__proto__" or "constructor" is only ever a key.

const INT64_MIN = -(2 ** 63);
const INT64_MAX = 2 ** 63;

function celNumber(n: number): bigint | number {
  return Number.isInteger(n) && n >= INT64_MIN && n < INT64_MAX ? BigInt(n) : n;
}

/** A JSON value (objects, arrays, strings, numbers, booleans, null) as CEL sees it. */
export function celJson(v: unknown): unknown {
  if (typeof v === 'number') return celNumber(v);
  if (Array.isArray(v)) return v.map(celJson);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(v)) out[k] = celJson(x);
    return out;
  }
  return v;
}
