import { describe, expect, it } from 'vitest';
import { DEFAULT_USERS, UserStore, defaultSub, userClaims } from './users.js';

// scrypt is CPU-bound by design (each store hashes every password): on a 2-core machine at load 25
// the first test took 5.1 s, past vitest's 5 s default
describe('test identity provider users', { timeout: 60_000 }, () => {
  it('checks passwords against scrypt hashes and tells a wrong password from no one', async () => {
    const store = await UserStore.create(DEFAULT_USERS);
    const alice = await store.verify('alice', 'alice-correct-horse');
    expect(alice?.username).toBe('alice');
    expect(alice?.hash).toHaveLength(32);
    expect(alice?.hash.toString('utf8')).not.toContain('alice-correct-horse');
    expect(await store.verify('alice', 'alice-correct-hors')).toBeUndefined();
    expect(await store.verify('alice', '')).toBeUndefined();
    expect(await store.verify('mallory', 'alice-correct-horse')).toBeUndefined();
    expect(store.usernames).toEqual(['alice', 'bob', 'carol']);
  });

  it('gives each user a stable opaque subject and the claims an ID token carries', async () => {
    const store = await UserStore.create(DEFAULT_USERS);
    const alice = store.bySubject(defaultSub('alice'))!;
    expect(defaultSub('alice')).toMatch(/^[0-9a-f]{32}$/);
    expect(defaultSub('alice')).not.toBe(defaultSub('bob'));
    expect(userClaims(alice)).toEqual({
      sub: defaultSub('alice'),
      preferred_username: 'alice',
      name: 'alice',
      email: 'alice@example.test',
      email_verified: true,
      groups: ['shop-admins', 'palisade-operators'],
    });
    // no groups: no claim at all (kube-apiserver treats [] and a missing claim alike)
    expect(userClaims(store.bySubject(defaultSub('carol'))!)).not.toHaveProperty('groups');
  });

  it('refuses a user list with duplicates or missing passwords', async () => {
    await expect(
      UserStore.create([
        { username: 'a', password: 'x' },
        { username: 'a', password: 'y' },
      ]),
    ).rejects.toThrow(/twice/);
    await expect(UserStore.create([{ username: 'a', password: '' }])).rejects.toThrow(/password/);
    const custom = await UserStore.create([
      {
        username: 'dave',
        password: 'pw',
        sub: 'u-1',
        email: 'dave@corp.test',
        emailVerified: false,
        groups: ['g'],
      },
    ]);
    expect(userClaims(custom.bySubject('u-1')!)).toMatchObject({
      email: 'dave@corp.test',
      email_verified: false,
      groups: ['g'],
    });
  });
});
