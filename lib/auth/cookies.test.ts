import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cookieValues, findSessionCookie, openCookie, sealCookie, sessionCookieName } from './cookies.js';

describe('the session cookie', () => {
  it('is named __Host- over HTTPS and after the port over HTTP', () => {
    expect(sessionCookieName(true, 443)).toBe('__Host-palisade_session');
    expect(sessionCookieName(false, 3000)).toBe('palisade_session_3000');
  });

  const N = 'palisade_session_3000';
  it.each([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['other=1', { kind: 'none' }],
    [`${N}=`, { kind: 'none' }],
    [`${N}=abc`, { kind: 'one', value: 'abc' }],
    [`a=1; ${N}=abc; b=2`, { kind: 'one', value: 'abc' }],
    [`${N}="abc"`, { kind: 'one', value: 'abc' }],
    // a console on another port has its own name: not a conflict
    [`palisade_session_3001=x; ${N}=abc`, { kind: 'one', value: 'abc' }],
    [`x${N}=zzz; ${N}=abc`, { kind: 'one', value: 'abc' }],
    // planted from another port with a longer Path: the browser sends both, the planted one first
    [`${N}=planted; ${N}=mine`, { kind: 'conflict', count: 2 }],
    [`${N}=same; ${N}=same`, { kind: 'conflict', count: 2 }],
  ] as const)('Cookie %j -> %j', (header, want) => expect(findSessionCookie(header, N)).toEqual(want));

  it('decodes values as browsers send them', () =>
    expect(cookieValues(`${N}=a%2Eb; ${N}=%E0%A4%A`, N)).toEqual(['a.b', '%E0%A4%A']));

  const key = randomBytes(32);
  const id = randomBytes(32).toString('base64url');

  it('opens only values this install sealed', () => {
    const v = sealCookie(id, key);
    expect(openCookie(v, key)).toBe(id);
    // another install (another key), the bare id, a changed id or MAC, a value without a MAC
    expect(openCookie(v, randomBytes(32))).toBeUndefined();
    expect(openCookie(id, key)).toBeUndefined();
    expect(openCookie(`x${v}`, key)).toBeUndefined();
    expect(openCookie(`${v.slice(0, -1)}${v.endsWith('A') ? 'B' : 'A'}`, key)).toBeUndefined();
    expect(openCookie(`${id}.`, key)).toBeUndefined();
    expect(openCookie('.', key)).toBeUndefined();
    expect(openCookie('', key)).toBeUndefined();
  });
});
