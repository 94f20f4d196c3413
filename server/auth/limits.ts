// Rate limits (rate-limiter-flexible, in memory): sign-in attempts per client address, so a
// token cannot be guessed by brute force, and console mutations per person, so a runaway script
// or a stuck button cannot hammer the cluster. A refusal says when to try again.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface Limits {
  /** sign-in attempts (token, link) per client address per minute */
  signInPerMinute: number;
  /** mutations per person per minute */
  mutationsPerMinute: number;
}

export const DEFAULT_LIMITS: Limits = { signInPerMinute: 20, mutationsPerMinute: 120 };

export type Admit = { ok: true } | { ok: false; retryAfterSeconds: number };

export class RateLimits {
  private readonly signIn: RateLimiterMemory;
  private readonly mutations: RateLimiterMemory;

  constructor(limits: Limits = DEFAULT_LIMITS) {
    this.signIn = new RateLimiterMemory({
      keyPrefix: 'signin',
      points: limits.signInPerMinute,
      duration: 60,
    });
    this.mutations = new RateLimiterMemory({
      keyPrefix: 'mutate',
      points: limits.mutationsPerMinute,
      duration: 60,
    });
  }

  signInFrom(address: string): Promise<Admit> {
    return admit(this.signIn, address);
  }

  mutationBy(person: string): Promise<Admit> {
    return admit(this.mutations, person);
  }
}

async function admit(limiter: RateLimiterMemory, key: string): Promise<Admit> {
  try {
    await limiter.consume(key);
    return { ok: true };
  } catch (e) {
    if (e instanceof RateLimiterRes)
      return { ok: false, retryAfterSeconds: Math.ceil(e.msBeforeNext / 1000) };
    throw e;
  }
}
