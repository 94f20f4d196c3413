// Each count's change over the last 5 and 15 minutes, from a series of samples (the server
// samples every ~10 s and keeps them in the history store, so a restart keeps the trend). The
// sample compared with is the newest one at least that old; with none old enough (the console
// has run for less than that, with no store) the change is unknown, not zero. Pure.
import { z } from 'zod';
import {
  type Change,
  SITUATION_KEYS,
  type Situation,
  type SituationKey,
  type SituationSample,
} from './types.js';

export const TREND_WINDOWS = { m5: 5 * 60_000, m15: 15 * 60_000 } as const;
/** a sample this much younger than the window still stands for it (the sampler's period) */
const SLACK_MS = 15_000;

function sampleAt(samples: SituationSample[], at: number): SituationSample | undefined {
  let best: SituationSample | undefined;
  for (const s of samples) if (s.at <= at + SLACK_MS && (!best || s.at > best.at)) best = s;
  return best;
}

export function changesOf(
  now: number,
  current: Situation,
  samples: SituationSample[],
): Record<SituationKey, Change> {
  const m5 = sampleAt(samples, now - TREND_WINDOWS.m5);
  const m15 = sampleAt(samples, now - TREND_WINDOWS.m15);
  const out = {} as Record<SituationKey, Change>;
  for (const k of SITUATION_KEYS)
    out[k] = {
      ...(m5 ? { m5: current[k] - m5.counts[k] } : {}),
      ...(m15 ? { m15: current[k] - m15.counts[k] } : {}),
    };
  return out;
}

/** how long samples are kept: what the longest window needs, and a little more */
export const KEEP_SAMPLES_MS = TREND_WINDOWS.m15 + 60_000;

/** A bounded ring of samples: keeps what the longest window needs, and a little more. */
export function pushSample(samples: SituationSample[], s: SituationSample, keepMs = KEEP_SAMPLES_MS) {
  samples.push(s);
  while (samples.length > 0 && samples[0].at < s.at - keepMs) samples.shift();
}

/**
 * Samples read back from the store joined with the ring's: in time order, one per instant (the
 * ring's wins), none older than keepMs before the newest.
 */
export function mergeSamples(
  ring: SituationSample[],
  stored: SituationSample[],
  keepMs = KEEP_SAMPLES_MS,
): SituationSample[] {
  const byAt = new Map<number, SituationSample>();
  for (const s of [...stored, ...ring]) byAt.set(s.at, s);
  const all = [...byAt.values()].sort((a, b) => a.at - b.at);
  const newest = all.at(-1)?.at ?? 0;
  return all.filter((s) => s.at >= newest - keepMs);
}

/**
 * A stored sample's counts: every count a whole number, none missing (a row an older version
 * wrote before a count was added is not compared with).
 */
export const situationCounts = z.object(
  Object.fromEntries(SITUATION_KEYS.map((k) => [k, z.number().int().nonnegative()])) as Record<
    SituationKey,
    z.ZodNumber
  >,
);
