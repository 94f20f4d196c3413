import { describe, expect, it } from 'vitest';
import { principalFromClaims } from './claims.js';

const m = {
  usernameClaim: 'preferred_username',
  groupsClaim: 'groups',
  usernamePrefix: 'oidc:',
  groupsPrefix: 'oidc:',
};

describe('principalFromClaims', () => {
  it('maps name and groups with their prefixes, the subject as uid', () =>
    expect(
      principalFromClaims({ sub: 's1', preferred_username: 'alice', groups: ['shop-admins', 'ops'] }, m),
    ).toEqual({
      ok: true,
      principal: { username: 'oidc:alice', uid: 's1', groups: ['oidc:shop-admins', 'oidc:ops'] },
    }));
  it('takes a single group given as a string, and none', () => {
    expect(principalFromClaims({ preferred_username: 'a', groups: 'x' }, m)).toMatchObject({
      principal: { groups: ['oidc:x'] },
    });
    expect(principalFromClaims({ preferred_username: 'a' }, m)).toMatchObject({ principal: { groups: [] } });
  });
  it('refuses a token without the username claim', () =>
    expect(principalFromClaims({ sub: 's' }, m)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/preferred_username/),
    }));
  it('never hands out system: names', () => {
    const noPrefix = { ...m, usernamePrefix: '', groupsPrefix: '' };
    expect(principalFromClaims({ preferred_username: 'system:admin' }, noPrefix)).toMatchObject({
      ok: false,
    });
    expect(
      principalFromClaims({ preferred_username: 'eve', groups: ['system:masters', 'dev'] }, noPrefix),
    ).toMatchObject({
      principal: { groups: ['dev'] },
    });
  });
  it('refuses an unverified email as the name', () =>
    expect(
      principalFromClaims({ email: 'a@b.c', email_verified: false }, { ...m, usernameClaim: 'email' }),
    ).toMatchObject({ ok: false }));
});
