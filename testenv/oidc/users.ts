// The test identity provider's people: static users with real passwords, kept only as scrypt
// hashes in memory. Each has a stable opaque subject (derived from the username, so tokens
// name the same `sub` across restarts), and the claims an ID token carries for them.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface UserSpec {
  username: string;
  password: string;
  /** the `groups` claim (default none: the claim is left out) */
  groups?: string[];
  /** default <username>@example.test */
  email?: string;
  /** default true */
  emailVerified?: boolean;
  /** the `name` claim; default the username */
  name?: string;
  /** the `sub` claim; default a stable hash of the username */
  sub?: string;
}

/** Who can sign in when the caller names nobody. The passwords are for tests only. */
export const DEFAULT_USERS: readonly UserSpec[] = Object.freeze([
  { username: 'alice', password: 'alice-correct-horse', groups: ['shop-admins', 'palisade-operators'] },
  { username: 'bob', password: 'bob-battery-staple', groups: ['palisade-viewers'] },
  { username: 'carol', password: 'carol-no-groups' },
]);

export interface StoredUser {
  sub: string;
  username: string;
  email: string;
  emailVerified: boolean;
  name: string;
  groups: string[];
  salt: Buffer;
  hash: Buffer;
}

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export function defaultSub(username: string): string {
  return createHash('sha256').update(`palisade-test-idp\0${username}`).digest('hex').slice(0, 32);
}

export class UserStore {
  private readonly byName = new Map<string, StoredUser>();
  private readonly bySub = new Map<string, StoredUser>();
  /** a hash to compare against for unknown names, so they cost as much time as a wrong password */
  private readonly decoy = { salt: randomBytes(16), hash: randomBytes(KEY_LENGTH) };

  private constructor() {}

  static async create(specs: readonly UserSpec[]): Promise<UserStore> {
    const store = new UserStore();
    for (const spec of specs) {
      if (!spec.username || !spec.password) throw new Error('every user needs a username and a password');
      if (store.byName.has(spec.username)) throw new Error(`user ${spec.username} is listed twice`);
      const salt = randomBytes(16);
      const user: StoredUser = {
        sub: spec.sub ?? defaultSub(spec.username),
        username: spec.username,
        email: spec.email ?? `${spec.username}@example.test`,
        emailVerified: spec.emailVerified ?? true,
        name: spec.name ?? spec.username,
        groups: [...(spec.groups ?? [])],
        salt,
        hash: await derive(spec.password, salt),
      };
      if (store.bySub.has(user.sub)) throw new Error(`subject ${user.sub} is used twice`);
      store.byName.set(user.username, user);
      store.bySub.set(user.sub, user);
    }
    return store;
  }

  /** the user whose password this is, or undefined (unknown name or wrong password alike) */
  async verify(username: string, password: string): Promise<StoredUser | undefined> {
    const user = this.byName.get(username);
    const { salt, hash } = user ?? this.decoy;
    const key = await derive(password, salt);
    return user && timingSafeEqual(key, hash) ? user : undefined;
  }

  bySubject(sub: string): StoredUser | undefined {
    return this.bySub.get(sub);
  }

  get usernames(): string[] {
    return [...this.byName.keys()];
  }
}

/** every claim the provider can release for a user; the granted scopes decide which it does */
export function userClaims(user: StoredUser): Record<string, unknown> {
  return {
    sub: user.sub,
    preferred_username: user.username,
    name: user.name,
    email: user.email,
    email_verified: user.emailVerified,
    ...(user.groups.length ? { groups: user.groups } : {}),
  };
}
