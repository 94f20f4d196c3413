// What the map, the lists and the pod page show about deletion protection. Pure.

export interface ProtectorGlance {
  key: string;
  minAvailable: number;
  aggregated: number;
  estimated: number;
  dangling: boolean;
}

/**
 * A protector stands at or below its floor when the pessimistic of its two counts
 * (the aggregator's and the webhook's estimate) does not exceed minAvailable: from then on
 * every deletion of an available pod it guards is refused.
 */
export function atOrBelowFloor(p: ProtectorGlance): boolean {
  return Math.min(p.aggregated, p.estimated) <= p.minAvailable;
}

export interface ProtectionSummary {
  total: number;
  atOrBelowFloor: number;
  dangling: number;
}

export function summarizeProtectors(rows: Iterable<ProtectorGlance>): ProtectionSummary {
  const s = { total: 0, atOrBelowFloor: 0, dangling: 0 };
  for (const r of rows) {
    s.total++;
    if (atOrBelowFloor(r)) s.atOrBelowFloor++;
    if (r.dangling) s.dangling++;
  }
  return s;
}

/** "shop/checkout-1" -> protector keys, from the server's pod index */
export type PodProtectorIndex = ReadonlyMap<string, readonly string[]>;

export function podKey(p: { namespace: string; name: string }): string {
  return `${p.namespace}/${p.name}`;
}

/** How many of these pods some protector guards. */
export function protectedCount(
  pods: readonly { namespace: string; name: string }[],
  index: PodProtectorIndex | undefined,
): number {
  if (!index || index.size === 0) return 0;
  let n = 0;
  for (const p of pods) if (index.has(podKey(p))) n++;
  return n;
}

/** The distinct protectors guarding these pods, sorted. */
export function protectorsOf(
  pods: readonly { namespace: string; name: string }[],
  index: PodProtectorIndex | undefined,
): string[] {
  if (!index || index.size === 0) return [];
  const out = new Set<string>();
  for (const p of pods) for (const k of index.get(podKey(p)) ?? []) out.add(k);
  return [...out].sort();
}
