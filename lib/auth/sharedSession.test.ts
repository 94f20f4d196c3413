import { describe, expect, it } from 'vitest';
import { cookiePort } from './session.js';
import {
  claimDecision,
  decodeRecord,
  encodeRecord,
  endedReason,
  oidcRenewDue,
  type SessionRecord,
  sharedLimits,
  touchDue,
  touchIntervalMs,
} from './sharedSession.js';

const MIN = 60_000;
const limits = { idleMs: 30 * MIN, absoluteMs: 12 * 60 * MIN };
const rec = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  v: 1,
  method: 'oidc',
  credential: { kind: 'impersonate', as: { username: 'alice', groups: ['ops'] } },
  principals: [['c1', { username: 'alice', groups: ['ops'] }]],
  createdAt: 0,
  lastSeenAt: 0,
  ...over,
});

describe('touchIntervalMs', () => {
  it.each([
    ['1/20 of the idle limit', 5 * MIN, 15_000],
    ['at most 30 s', 30 * MIN, 30_000],
    ['at least 1 s', 10_000, 1_000],
  ])('%s', (_, idleMs, want) => expect(touchIntervalMs({ idleMs, absoluteMs: 12 * 60 * MIN })).toBe(want));
});

describe('sharedLimits and touchDue', () => {
  it('idle gets one touch interval of slack, absolute none', () =>
    expect(sharedLimits(limits)).toEqual({ idleMs: 30 * MIN + 30_000, absoluteMs: limits.absoluteMs }));
  it.each([
    ['the store is as fresh as this replica', 1000, 1000, false],
    ['behind by less than the interval', 1000, 30_999, false],
    ['behind by the interval', 1000, 31_000, true],
    ['this replica is behind the store', 50_000, 1000, false],
  ])('%s', (_, stored, local, want) => expect(touchDue(stored, local, limits)).toBe(want));
});

describe('oidcRenewDue and claimDecision', () => {
  const now = 1_000_000;
  it.each([
    ['no expiry known', undefined, false],
    ['an hour left', { issuedAt: now, expiresAt: now + 60 * MIN }, false],
    ['59 s left of an hour', { issuedAt: now - 60 * MIN, expiresAt: now + 59_000 }, true],
    ['a 10 s token, 6 s left', { issuedAt: now - 4_000, expiresAt: now + 6_000 }, false],
    ['a 10 s token, 4 s left', { issuedAt: now - 6_000, expiresAt: now + 4_000 }, true],
    ['expired already', { issuedAt: now - 2 * MIN, expiresAt: now - 1 }, true],
  ])('%s', (_, oidc, want) => expect(oidcRenewDue(oidc, now)).toBe(want));

  const due = { issuedAt: now - 60 * MIN, expiresAt: now + 10_000, refreshToken: 'r' };
  it.each([
    ['due, nobody on it', rec({ oidc: due }), 'claim'],
    ['not due', rec({ oidc: { ...due, expiresAt: now + 30 * MIN } }), 'not-due'],
    ['not an OIDC session', rec({ method: 'token', oidc: due }), 'not-due'],
    ['another replica holds the claim', rec({ oidc: due, refreshing: { by: 'b', until: now + 1 } }), 'held'],
    [
      'a claim that ran out (its replica died)',
      rec({ oidc: due, refreshing: { by: 'b', until: now } }),
      'claim',
    ],
  ] as const)('%s', (_, r, want) => expect(claimDecision(r, now)).toBe(want));
});

describe('endedReason', () => {
  it.each([
    ['alive when deleted: someone signed out', rec({ createdAt: 0, lastSeenAt: 0 }), 10 * MIN, 'signed-out'],
    ['past idle and its slack', rec(), 30 * MIN + 30_000, 'idle'],
    ['within the slack: still a sign-out', rec(), 30 * MIN + 29_000, 'signed-out'],
    ['past the absolute limit', rec({ lastSeenAt: 12 * 60 * MIN - 1 }), 12 * 60 * MIN, 'absolute'],
    ['the record says why', rec({ ended: 'refresh-failed' }), 1, 'refresh-failed'],
  ] as const)('%s', (_, r, now, want) => expect(endedReason(r, now, limits)).toBe(want));
});

describe('decodeRecord', () => {
  it('reads back what it wrote', () =>
    expect(decodeRecord(encodeRecord(rec()))).toEqual({ ok: true, record: rec() }));
  it.each([
    ['not JSON', '{', 'not JSON'],
    ['another version', JSON.stringify({ ...rec(), v: 2 }), 'v: '],
    ['a credential of no known kind', JSON.stringify({ ...rec(), credential: { kind: 'x' } }), 'credential'],
  ])('%s', (_, text, err) => {
    const d = decodeRecord(text);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toContain(err);
  });
  it('never echoes what it could not read (it may hold a token)', () => {
    const d = decodeRecord(JSON.stringify({ ...rec(), credential: { kind: 'token', token: 42 } }));
    expect(JSON.stringify(d)).not.toContain('42');
  });
});

describe('cookiePort', () => {
  it.each([
    ['no public URL: the port it listens on', 3000, undefined, 3000],
    ['behind one address: its port, whatever this replica listens on', 40123, 'http://127.0.0.1:8080', 8080],
    ['http without a port', 40123, 'http://palisade.internal/', 80],
    ['https without a port', 40123, 'https://palisade.example.com', 443],
  ])('%s', (_, port, url, want) => expect(cookiePort(port, url)).toBe(want));
});
