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
    expect(refused.ok === false && refused.limit).toBe('signin');
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

  it('count failures per client and per token; a client or token over its limit waits', async () => {
    const l = new RateLimits({ failuresPerMinute: 3, failuresPerTokenPerMinute: 2 });
    expect(await l.mayTry('10.0.0.1', 'tok-a')).toEqual({ ok: true });
    await l.failed('10.0.0.1', 'tok-a');
    await l.failed('10.0.0.1', 'tok-a');
    // the token has failed twice: from anywhere it waits
    expect(await l.mayTry('10.0.0.9', 'tok-a')).toMatchObject({ ok: false, limit: 'token-failures' });
    // the client may still try other tokens once more, then waits for every token
    expect(await l.mayTry('10.0.0.1', 'tok-b')).toEqual({ ok: true });
    await l.failed('10.0.0.1', 'tok-b');
    expect(await l.mayTry('10.0.0.1', 'tok-c')).toMatchObject({ ok: false, limit: 'client-failures' });
    expect(await l.mayTry('10.0.0.1')).toMatchObject({ ok: false, limit: 'client-failures' });
    // asking consumes nothing: another client is untouched
    expect(await l.mayTry('10.0.0.2', 'tok-c')).toEqual({ ok: true });
  });

  it('key IPv6 clients by their /64: rotating addresses in it is no way around a limit', async () => {
    const l = new RateLimits({ failuresPerMinute: 2 });
    await l.failed('2001:db8:1:2::1');
    await l.failed('2001:db8:1:2::2');
    expect((await l.mayTry('2001:db8:1:2:aaaa::3')).ok).toBe(false);
    expect((await l.mayTry('2001:db8:1:3::1')).ok).toBe(true);
  });

  it('count authentications per person', async () => {
    const l = new RateLimits({ authenticationsPerUserPerMinute: 2 });
    expect(await l.authenticated('alice')).toEqual({ ok: true });
    expect(await l.authenticated('alice')).toEqual({ ok: true });
    expect(await l.authenticated('alice')).toMatchObject({ ok: false, limit: 'user' });
    expect(await l.authenticated('bob')).toEqual({ ok: true });
  });
});
