// The instance-ID map as it is stored: the annotation's JSON text {"<id>": "<pod name>"}.
// Reading is strict — ids are decimal integers >= 0 written without leading zeros, values are
// pod names, no id appears twice in the text and no pod holds two ids — because a map nobody
// can trust must never be silently rewritten: it is reported, entry by entry, with what to do.
// Writing is canonical: ids in ascending order, no spaces.

export interface MapEntry {
  /** the key exactly as written */
  key: string;
  /** the id, when the key is a valid one */
  id?: number;
  /** the value as written (a pod name when valid) */
  pod: unknown;
}

export interface ParsedIdMap {
  /** no problems: `map` is the whole truth */
  ok: boolean;
  /** id -> pod name, from the valid entries (the last one for an id written twice) */
  map: Map<number, string>;
  /** every top-level entry in the order written, duplicates included */
  entries: MapEntry[];
  problems: string[];
}

const ID_KEY = /^(0|[1-9][0-9]*)$/;
/** a pod name: a DNS subdomain (RFC 1123), at most 253 characters */
const POD_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isValidId(key: string): boolean {
  return ID_KEY.test(key) && Number.isSafeInteger(Number(key));
}

export function isPodName(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 253 && POD_NAME.test(v);
}

const quote = (s: string) => JSON.stringify(s);

/**
 * The top-level entries of a JSON object text, in order and with duplicates (JSON.parse keeps
 * only the last of a repeated key). Only called on text JSON.parse accepted as an object.
 */
function topLevelEntries(text: string): [string, unknown][] {
  const out: [string, unknown][] = [];
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  let valueStart = -1;
  const close = (end: number) => {
    if (key !== undefined) out.push([key, JSON.parse(text.slice(valueStart, end))]);
    key = undefined;
    valueStart = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        key = JSON.parse(text.slice(i, j + 1));
        expectKey = false;
      }
      i = j;
    } else if (c === ':' && depth === 1 && key !== undefined && valueStart < 0) valueStart = i + 1;
    else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      if (depth === 1) close(i);
      depth--;
    } else if (c === ',' && depth === 1) {
      close(i);
      expectKey = true;
    }
  }
  return out;
}

/** Read the annotation's text; an absent annotation is the empty map. */
export function parseIdMap(raw: string | undefined): ParsedIdMap {
  const empty = (problems: string[]): ParsedIdMap => ({ ok: false, map: new Map(), entries: [], problems });
  if (raw === undefined) return { ok: true, map: new Map(), entries: [], problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return empty([`it is not valid JSON (${(e as Error).message})`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return empty([
      `it is JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}, not an object {"<id>": "<pod name>"}`,
    ]);
  const obj = value as Record<string, unknown>;
  const problems: string[] = [];
  const entries: MapEntry[] = [];
  const seen = new Map<string, number>();
  for (const [key, pod] of topLevelEntries(raw)) {
    seen.set(key, (seen.get(key) ?? 0) + 1);
    entries.push({ key, ...(isValidId(key) ? { id: Number(key) } : {}), pod });
  }
  const map = new Map<number, string>();
  for (const [key, n] of seen) {
    const v = obj[key];
    if (!isValidId(key))
      problems.push(`entry ${quote(key)}: the id must be a decimal integer >= 0 without leading zeros`);
    else if (!isPodName(v))
      problems.push(
        `entry ${quote(key)}: the value must be a pod name, not ${JSON.stringify(v) ?? 'nothing'}`,
      );
    else map.set(Number(key), v);
    if (n > 1) problems.push(`entry ${quote(key)} is written ${n} times: an id belongs to one pod`);
  }
  const idsOf = new Map<string, number[]>();
  for (const [id, pod] of map) idsOf.set(pod, [...(idsOf.get(pod) ?? []), id]);
  for (const [pod, ids] of idsOf)
    if (ids.length > 1)
      problems.push(
        `pod ${quote(pod)} holds ${ids.length} ids (${ids.sort((a, b) => a - b).join(', ')}): a pod holds one`,
      );
  return { ok: problems.length === 0, map, entries, problems };
}

/** The annotation's text for a map: ids ascending, compact. */
export function serializeIdMap(map: ReadonlyMap<number, string>): string {
  const ids = [...map.keys()].sort((a, b) => a - b);
  return `{${ids.map((id) => `${quote(String(id))}:${quote(map.get(id)!)}`).join(',')}}`;
}

/** The id a pod holds in a map, if any. */
export function idOf(map: ReadonlyMap<number, string>, pod: string): number | undefined {
  for (const [id, p] of map) if (p === pod) return id;
  return undefined;
}
