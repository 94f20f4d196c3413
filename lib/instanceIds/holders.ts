// Where each ID's holder runs: the node and its bootID when the pod took (or last confirmed)
// its ID, kept in a second annotation beside the map, {"<pod>": {"node": …, "bootID": …}}. The
// map alone names pods; once a pod is gone from the API (force-deleted, or gone while no Palisade
// replica watched) this record is what says which node — and which boot of it — must be fenced
// or have booted again before the ID can go to another pod (lib/guard/stopped.ts). Advisory:
// a record that cannot be read is rewritten from scratch, and an entry without one is judged
// without it (it waits until its pod's fate is known).
import { parseIdMap } from './map.js';

export interface HolderRecord {
  node: string;
  bootID?: string;
}

export function parseHolderRecords(raw: string | undefined): Map<string, HolderRecord> {
  const out = new Map<string, HolderRecord>();
  if (!raw) return out;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return out;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return out;
  for (const [pod, r] of Object.entries(v as Record<string, unknown>)) {
    const rec = r as { node?: unknown; bootID?: unknown } | null;
    if (!rec || typeof rec.node !== 'string' || !rec.node) continue;
    out.set(pod, {
      node: rec.node,
      ...(typeof rec.bootID === 'string' && rec.bootID ? { bootID: rec.bootID } : {}),
    });
  }
  return out;
}

export function serializeHolderRecords(records: ReadonlyMap<string, HolderRecord>): string {
  const sorted = [...records].sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(Object.fromEntries(sorted.map(([p, r]) => [p, r.bootID ? r : { node: r.node }])));
}

/**
 * The record to write beside `map` (the map as it will be written): one entry per pod the map
 * names, `seen` (pods that asked now, as they run now) replacing what was recorded. undefined:
 * nothing changes.
 */
export function nextHolderRecords(
  raw: string | undefined,
  map: string | undefined,
  seen: ReadonlyMap<string, HolderRecord>,
): string | undefined {
  const before = parseHolderRecords(raw);
  const named = new Set(parseIdMap(map).map.values());
  const next = new Map<string, HolderRecord>();
  for (const pod of [...named].sort()) {
    const r = seen.get(pod) ?? before.get(pod);
    if (r) next.set(pod, r);
  }
  const text = serializeHolderRecords(next);
  if (raw === undefined && next.size === 0) return undefined;
  return text === raw ? undefined : text;
}
