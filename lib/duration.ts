// Durations as people write them in YAML ("500ms", "8s", "6m", "1h"), read into milliseconds.
// Shared by scenario files and palisade.yaml so both accept and refuse the same spellings.
import { z } from 'zod';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

export const durationSchema = z
  .string()
  .regex(PATTERN, { error: 'must be a duration like 500ms, 8s, 6m or 1h' })
  .transform((v) => {
    const m = PATTERN.exec(v)!;
    return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  });
