// Which seeds a fault run takes: the short set `npm test` runs, or PALISADE_FAULT_SEEDS=N for
// seeds 1..N (PALISADE_FAULT_SEEDS=7,42 for those). The short set: seeds 3 and 4, which between
// them have kubelet crashes, partitions healed mid-fence, power cuts and a replica killed — and
// each broke unique-instance-id with seed 002's rule (an evicted pod's ID taken while it still
// ran: issue 23), so the set fails if that rule comes back.
export const SHORT_SEEDS = [3, 4];

export function seedsFromEnv(env: Record<string, string | undefined> = process.env): number[] {
  const v = env.PALISADE_FAULT_SEEDS?.trim();
  if (!v) return SHORT_SEEDS;
  if (/^\d+$/.test(v)) return Array.from({ length: Number(v) }, (_, i) => i + 1);
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new Error(`PALISADE_FAULT_SEEDS must be a count (100) or a list of seeds (7,42), not "${v}"`);
  return list;
}
