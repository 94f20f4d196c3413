import { describe, expect, it } from 'vitest';
import { API_AUDIENCE, ServiceAccountTokens } from './serviceAccountTokens.js';

describe('ServiceAccount tokens', () => {
  let now = 1_800_000_000_000;
  const accounts = new Map([['ns/robot', { uid: 'u1' }]]);
  const sat = new ServiceAccountTokens(
    (ns, name) => accounts.get(`${ns}/${name}`),
    () => now,
  );
  const sa = { namespace: 'ns', name: 'robot', uid: 'u1' };

  it('authenticates as the ServiceAccount, with its groups and the credential id', () => {
    const { token } = sat.issue(sa, 600);
    const r = sat.authenticate(token);
    expect(r && 'user' in r && r.user).toMatchObject({
      username: 'system:serviceaccount:ns:robot',
      uid: 'u1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    });
    expect(r && 'audiences' in r && r.audiences).toEqual([API_AUDIENCE]);
  });

  it('expires after expirationSeconds plus a minute of leeway', () => {
    const { token, expiresAt } = sat.issue(sa, 600);
    expect(expiresAt.getTime()).toBe(now + 600_000);
    const start = now;
    now = start + 660_000;
    expect(sat.authenticate(token)).toHaveProperty('user');
    now = start + 661_000;
    expect(sat.authenticate(token)).toEqual({ error: 'service account token has expired' });
    now = start;
  });

  it('dies with its ServiceAccount, and with a new one of the same name', () => {
    const { token } = sat.issue(sa, 600);
    accounts.set('ns/robot', { uid: 'u2' });
    expect(sat.authenticate(token)).toEqual({ error: 'service account UID (u2) does not match claim (u1)' });
    accounts.delete('ns/robot');
    expect(sat.authenticate(token)).toEqual({ error: 'serviceaccounts "robot" not found' });
    accounts.set('ns/robot', { uid: 'u1' });
  });

  it('holds only for its audiences; forged or foreign tokens are nobody', () => {
    const { token } = sat.issue(sa, 600, ['palisade']);
    expect(sat.authenticate(token)).toEqual({
      error: `token audiences ["palisade"] is invalid for the target audiences ["${API_AUDIENCE}"]`,
    });
    expect(sat.authenticate(token, ['palisade', 'x'])).toMatchObject({ audiences: ['palisade'] });
    const [h, p] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), aud: [API_AUDIENCE] })).toString('base64url')}.${token.split('.')[2]}`;
    expect(sat.authenticate(forged)).toBeUndefined();
    const other = new ServiceAccountTokens(() => ({ uid: 'u1' }));
    expect(sat.authenticate(other.issue(sa, 600).token)).toBeUndefined();
    expect(sat.authenticate('not-a-jwt')).toBeUndefined();
  });

  it('a token bound to a pod carries it (and its node) in the extra while the pod lives', () => {
    let pod: { uid?: string; deletionTimestamp?: string } | undefined = { uid: 'p1' };
    const bound = new ServiceAccountTokens(
      (ns, name) => accounts.get(`${ns}/${name}`),
      () => now,
      (ns, name) => (ns === 'ns' && name === 'web-0' ? pod : undefined),
    );
    const { token } = bound.issue(sa, 600, undefined, {
      pod: { name: 'web-0', uid: 'p1' },
      node: { name: 'n1', uid: 'n-uid' },
    });
    const r = bound.authenticate(token);
    expect(r && 'user' in r && r.user.extra).toEqual({
      'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^JTI=/)],
      'authentication.kubernetes.io/node-name': ['n1'],
      'authentication.kubernetes.io/node-uid': ['n-uid'],
      'authentication.kubernetes.io/pod-name': ['web-0'],
      'authentication.kubernetes.io/pod-uid': ['p1'],
    });
    // deleted gracefully: still valid for a minute after its deletionTimestamp
    pod = { uid: 'p1', deletionTimestamp: new Date(now - 59_000).toISOString() };
    expect(bound.authenticate(token)).toHaveProperty('user');
    pod = { uid: 'p1', deletionTimestamp: new Date(now - 61_000).toISOString() };
    expect(bound.authenticate(token)).toEqual({ error: 'service account token has been invalidated' });
    pod = { uid: 'p2' };
    expect(bound.authenticate(token)).toEqual({ error: 'service account token has been invalidated' });
    pod = undefined;
    expect(bound.authenticate(token)).toEqual({ error: 'service account token has been invalidated' });
  });
});
