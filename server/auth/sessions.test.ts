// The session store tells a request that comes just after its session ended why it ended, so the
// page that sent it says so on the sign-in page (as the socket's session:ended does).
import { afterEach, describe, expect, it } from 'vitest';
import type { Identity } from './identity.js';
import { SessionStore } from './sessions.js';

const identity: Omit<Identity, 'sessionKey'> = {
  method: 'link',
  credential: { kind: 'token', token: 't' } as unknown as Identity['credential'],
  principals: new Map([['c1', { username: 'alice', groups: [] }]]),
};

let store: SessionStore | undefined;
afterEach(() => store?.stop());

function storeAt(clock: { t: number }) {
  store = new SessionStore({ idleMs: 60_000, absoluteMs: 600_000 }, () => clock.t);
  return store;
}

describe('a session that ended', () => {
  it.each([
    ['its absolute limit', 'absolute', 600_001, 30_000],
    ['idle too long', 'idle', 60_001, 0],
  ] as const)('past %s: the next request learns why, once it is gone too', async (_n, why, after, step) => {
    const clock = { t: 1_000 };
    const s = storeAt(clock);
    const { id } = await s.create(identity);
    // kept in use (or not) until past the limit
    for (let t = step; step && t < after - 1_000; t += step) {
      clock.t = 1_000 + t;
      expect('session' in (await s.sessionOrEnded(id))).toBe(true);
    }
    clock.t = 1_000 + after;
    expect(await s.sessionOrEnded(id)).toEqual({ ended: why });
    // gone from the store now: still told why, for a while
    expect(await s.sessionOrEnded(id)).toEqual({ ended: why });
    expect(await s.use(id)).toBeUndefined();
    clock.t += 10 * 60_000;
    expect(await s.sessionOrEnded(id)).toEqual({});
  });

  it('ended by a sign-out: says so; an id never seen says nothing', async () => {
    const clock = { t: 1_000 };
    const s = storeAt(clock);
    const { id, session } = await s.create(identity);
    await s.end(session.sessionKey!, 'signed-out');
    expect(await s.sessionOrEnded(id)).toEqual({ ended: 'signed-out' });
    expect(await s.sessionOrEnded('never-issued')).toEqual({});
    expect(await s.sessionOrEnded(undefined)).toEqual({});
  });
});
