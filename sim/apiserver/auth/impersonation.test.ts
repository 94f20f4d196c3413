import { describe, expect, it } from 'vitest';
import {
  ImpersonationError,
  impersonatedUser,
  impersonationAttributes,
  impersonationRequests,
  splitServiceAccountUsername,
} from './impersonation.js';

describe('impersonation headers', () => {
  it('each Impersonate-Group line is one group, commas included', () => {
    const r = impersonationRequests({ 'impersonate-user': ['x'], 'impersonate-group': ['a,b', 'c'] });
    expect(r.map((x) => [x.kind, x.name])).toEqual([
      ['User', 'x'],
      ['Group', 'a,b'],
      ['Group', 'c'],
    ]);
    expect(impersonatedUser(r)).toEqual({ username: 'x', groups: ['a,b', 'c', 'system:authenticated'] });
  });

  it('a ServiceAccount user gets its groups unless groups are given', () => {
    const r = impersonationRequests({ 'impersonate-user': ['system:serviceaccount:ns1:sa1'] });
    expect(r).toEqual([{ kind: 'ServiceAccount', namespace: 'ns1', name: 'sa1' }]);
    expect(impersonatedUser(r).groups).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:ns1',
      'system:authenticated',
    ]);
    expect(
      impersonatedUser(
        impersonationRequests({
          'impersonate-user': ['system:serviceaccount:ns1:sa1'],
          'impersonate-group': ['g'],
        }),
      ).groups,
    ).toEqual(['g', 'system:authenticated']);
  });

  it('extras (keys lower-cased and unescaped) and the uid', () => {
    const r = impersonationRequests({
      'impersonate-user': ['x'],
      'impersonate-extra-scopes': ['a', 'b'],
      'impersonate-extra-foo%2fbar': ['c'],
      'impersonate-uid': ['U1'],
    });
    expect(impersonatedUser(r)).toEqual({
      username: 'x',
      uid: 'U1',
      groups: ['system:authenticated'],
      extra: { scopes: ['a', 'b'], 'foo/bar': ['c'] },
    });
    expect(impersonationAttributes(r[1])).toMatchObject({
      verb: 'impersonate',
      apiGroup: 'authentication.k8s.io',
      resource: 'userextras',
      subresource: 'scopes',
      name: 'a',
    });
    expect(impersonationAttributes(r[4])).toMatchObject({
      apiGroup: 'authentication.k8s.io',
      resource: 'uids',
      name: 'U1',
    });
  });

  it('anonymous is unauthenticated; an explicit system:unauthenticated keeps authenticated out', () => {
    expect(
      impersonatedUser(impersonationRequests({ 'impersonate-user': ['system:anonymous'] })).groups,
    ).toEqual(['system:unauthenticated']);
    expect(
      impersonatedUser(
        impersonationRequests({ 'impersonate-user': ['x'], 'impersonate-group': ['system:unauthenticated'] }),
      ).groups,
    ).toEqual(['system:unauthenticated']);
  });

  it.each([
    [{ 'impersonate-group': ['g'] }, 'requested [{Group  g    }] without impersonating a user'],
    [
      { 'impersonate-uid': ['u'] },
      'requested [{UID  u  authentication.k8s.io/v1  }] without impersonating a user',
    ],
    [
      { 'impersonate-extra-k': ['v'] },
      'requested [{UserExtra  v  authentication.k8s.io/v1  k}] without impersonating a user',
    ],
  ])("%j without a user is kube-apiserver's 500", (headers, message) => {
    expect(() => impersonationRequests(headers)).toThrow(new ImpersonationError(message));
  });

  it.each([
    ['system:serviceaccount:ns:name', { namespace: 'ns', name: 'name' }],
    ['system:serviceaccount:ns:a.b', { namespace: 'ns', name: 'a.b' }],
    ['system:serviceaccount:ns', undefined],
    ['system:serviceaccount:ns:a:b', undefined],
    ['system:serviceaccount:NS:a', undefined],
    ['alice', undefined],
  ])('splitServiceAccountUsername(%s)', (u, want) => expect(splitServiceAccountUsername(u)).toEqual(want));
});
