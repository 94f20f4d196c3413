import { describe, expect, it } from 'vitest';
import { openFlow, sealFlow } from './oidcFlow.js';

// values long enough that random ciphertext never contains them by chance ("s1" did: about one run in thirty)
const flow = {
  state: 'state-value-0123456789',
  verifier: 'v'.repeat(43),
  nonce: 'nonce-value-0123456789',
  next: '/nodes',
  at: 1_000_000,
};
const TTL = 600_000;

describe('the sealed OIDC flow cookie', () => {
  const sealed = sealFlow(flow, 'client-secret');

  it('opens with the same secret (another replica), within its lifetime', () =>
    expect(openFlow(sealed, 'client-secret', flow.at + 5_000, TTL)).toEqual({ ok: true, flow }));

  it('hides what it carries', () => {
    expect(sealed).not.toContain(flow.state);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain(flow.state);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain(flow.verifier);
    expect(sealFlow(flow, 'client-secret')).not.toBe(sealed);
  });

  const flip = (s: string, i: number) => {
    const b = Buffer.from(s, 'base64url');
    b[i] ^= 1;
    return b.toString('base64url');
  };
  it.each([
    ['another secret', sealed, 'other-secret', flow.at, 'unreadable'],
    ['a changed byte in the body', flip(sealed, 20), 'client-secret', flow.at, 'unreadable'],
    [
      'a changed tag',
      flip(sealed, Buffer.from(sealed, 'base64url').length - 1),
      'client-secret',
      flow.at,
      'unreadable',
    ],
    ['garbage', 'not-a-cookie', 'client-secret', flow.at, 'unreadable'],
    ['empty', '', 'client-secret', flow.at, 'unreadable'],
    ['too old', sealed, 'client-secret', flow.at + TTL + 1, 'expired'],
    ['from the future', sealed, 'client-secret', flow.at - 120_000, 'expired'],
  ])('refuses %s', (_, value, secret, now, why) =>
    expect(openFlow(value, secret, now, TTL)).toEqual({ ok: false, why }),
  );
});
