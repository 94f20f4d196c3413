// Which seeds a fault run takes: the short set `npm test` runs (chosen so that between them they
// cover every kind of fault: a power cut, partitions of one node and of five, a partition healed
// mid-fence, kubelet crashes, a replica killed), or PALISADE_FAULT_SEEDS=N for seeds 1..N
// (PALISADE_FAULT_SEEDS=7,42 for those).
export const SHORT_SEEDS = [1, 4];

export function seedsFromEnv(env: Record<string, string | undefined> = process.env): number[] {
  const v = env.PALISADE_FAULT_SEEDS?.trim();
  if (!v) return SHORT_SEEDS;
  if (/^\d+$/.test(v)) return Array.from({ length: Number(v) }, (_, i) => i + 1);
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new Error(`PALISADE_FAULT_SEEDS must be a count (100) or a list of seeds (7,42), not "${v}"`);
  return list;
}
