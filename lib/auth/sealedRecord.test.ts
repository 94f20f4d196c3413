import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openRecord, sealRecord, sessionKeys } from './sealedRecord.js';

const record = JSON.stringify({
  v: 1,
  method: 'token',
  credential: { kind: 'token', token: 'eyJhbGciOiJSUzI1NiJ9.secret-bearer-token-0123456789' },
  oidc: { refreshToken: 'refresh-token-value-0123456789' },
});

describe('session records at rest', () => {
  const keys = sessionKeys(randomBytes(32));
  const sealed = sealRecord(record, 'palisade-session-abc', keys.records);

  it('open with the key, for the Secret they were sealed for', () =>
    expect(openRecord(sealed, 'palisade-session-abc', keys.records)).toEqual({ ok: true, text: record }));

  it('hide the tokens they hold', () => {
    const text = sealed.toString('latin1');
    expect(text).not.toContain('secret-bearer-token');
    expect(text).not.toContain('refresh-token-value');
    expect(sealed.toString('base64')).not.toContain(Buffer.from('secret-bearer').toString('base64'));
  });

  it('refuse another key, another Secret (a record copied over), and any changed byte', () => {
    expect(openRecord(sealed, 'palisade-session-abc', sessionKeys(randomBytes(32)).records).ok).toBe(false);
    expect(openRecord(sealed, 'palisade-session-xyz', keys.records).ok).toBe(false);
    for (const i of [0, 1, 13, sealed.length - 1]) {
      const b = Buffer.from(sealed);
      b[i] ^= 1;
      expect(openRecord(b, 'palisade-session-abc', keys.records).ok).toBe(false);
    }
    expect(openRecord(Buffer.alloc(0), 'palisade-session-abc', keys.records)).toEqual({
      ok: false,
      why: 'unreadable',
    });
  });

  it('recognise a plaintext record of an older Palisade (to delete it, never to use it)', () =>
    expect(openRecord(Buffer.from(record), 'palisade-session-abc', keys.records)).toEqual({
      ok: false,
      why: 'plaintext',
    }));

  it('derive different keys for records and the cookie, and only from 32 bytes', () => {
    expect(keys.records.equals(keys.cookie)).toBe(false);
    expect(() => sessionKeys(randomBytes(16))).toThrow('must be 32 bytes, not 16');
  });
});
