// How long the history keeps entries: a duration that also takes days ("14d"), since retention
// is counted in days where the other durations of palisade.yaml are seconds and minutes.
import { z } from 'zod';

export const DEFAULT_RETENTION = '14d';
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const PATTERN = /^(\d+(?:\.\d+)?)(m|h|d)$/;
/** below this the store would prune what the timeline is showing */
export const MIN_RETENTION_MS = 3_600_000;

export const retentionSchema = z
  .string()
  .regex(PATTERN, { error: 'must be a duration like 14d, 36h or 90m' })
  .transform((v) => {
    const m = PATTERN.exec(v)!;
    return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  })
  .refine((ms) => ms >= MIN_RETENTION_MS, 'must be at least 1h');

/** Entries strictly older than this are deleted. */
export function retentionCutoff(now: number, retentionMs: number): Date {
  return new Date(now - retentionMs);
}
