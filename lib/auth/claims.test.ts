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
      leftOut: [],
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
  it('asserts only the allowed groups, and says which it left out', () => {
    const allowed = { ...m, allowedGroups: ['oidc:shop-admins'] };
    expect(
      principalFromClaims({ preferred_username: 'alice', groups: ['shop-admins', 'ops', 'dev'] }, allowed),
    ).toEqual({
      ok: true,
      principal: { username: 'oidc:alice', groups: ['oidc:shop-admins'] },
      leftOut: ['oidc:ops', 'oidc:dev'],
    });
    // an empty list: users only
    expect(
      principalFromClaims({ preferred_username: 'alice', groups: ['ops'] }, { ...m, allowedGroups: [] }),
    ).toMatchObject({ principal: { groups: [] }, leftOut: ['oidc:ops'] });
    // unset: every group, none left out
    expect(principalFromClaims({ preferred_username: 'alice', groups: ['ops'] }, m)).toMatchObject({
      principal: { groups: ['oidc:ops'] },
      leftOut: [],
    });
  });
  it('refuses an unverified email as the name', () =>
    expect(
      principalFromClaims({ email: 'a@b.c', email_verified: false }, { ...m, usernameClaim: 'email' }),
    ).toMatchObject({ ok: false }));
});
