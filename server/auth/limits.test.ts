import { describe, expect, it } from 'vitest';
import { RateLimits } from './limits.js';

describe('rate limits', () => {
  it('refuse sign-in attempts beyond the limit per address, saying when to try again', async () => {
    const l = new RateLimits({ signInPerMinute: 3, mutationsPerMinute: 100 });
    for (let i = 0; i < 3; i++) expect(await l.signInFrom('10.0.0.1')).toEqual({ ok: true });
    const refused = await l.signInFrom('10.0.0.1');
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.ok === false && refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // another address is not held back by the first one's attempts
    expect(await l.signInFrom('10.0.0.2')).toEqual({ ok: true });
  });

  it('count mutations per person, apart from sign-ins', async () => {
    const l = new RateLimits({ signInPerMinute: 1, mutationsPerMinute: 2 });
    expect(await l.mutationBy('alice')).toEqual({ ok: true });
    expect(await l.mutationBy('alice')).toEqual({ ok: true });
    expect((await l.mutationBy('alice')).ok).toBe(false);
    expect(await l.mutationBy('bob')).toEqual({ ok: true });
    expect(await l.signInFrom('alice')).toEqual({ ok: true });
  });
});
