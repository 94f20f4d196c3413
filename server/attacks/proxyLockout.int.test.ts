// Attack (issue 23, 6): one client locks everyone out. Sign-in attempts were limited per socket
// address, so behind an Ingress (one address for every browser) a script failing to sign in
// used up the one bucket and nobody could sign in. Now limits are keyed per client — the peer,
// or behind a configured trusted proxy (server.trustedProxies) the address it forwards — and per
// person; X-Forwarded-For from anyone else is ignored (a client cannot pick its own key).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../console.js';
import type { Console } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf } from '../test/client.js';
import { DEFAULT_LIMITS } from '../auth/limits.js';
import { rawRequest } from './harness.js';
import { join } from 'node:path';

let h: ClusterAndConsole;
/** behind a proxy it trusts (the tests' own address) */
let proxied: Console;
/** trusting no proxy */
let direct: Console;
let admin: string;
const limits = {
  ...DEFAULT_LIMITS,
  signInPerMinute: 3,
  failuresPerMinute: 100,
  authenticationsPerUserPerMinute: 2,
};

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'attack-proxy',
    rack: 'p1',
    count: 1,
    console: { auth: { trustedProxies: ['127.0.0.1/32', '::1'], limits } },
  });
  proxied = h.console;
  direct = await startConsole({
    clusters: await clustersFromKubeconfig(join(h.dir, 'kubeconfig')),
    ui: false,
    fencing: false,
    auth: { limits },
  });
  admin = tokenOf(h.cluster.kc);
}, 120_000);

afterAll(async () => {
  await direct?.stop();
  await h?.stop();
});

const signIn = (c: Console, token: string, client: string) =>
  rawRequest(
    c.port,
    'POST',
    '/auth/token',
    {
      host: `127.0.0.1:${c.port}`,
      origin: `http://127.0.0.1:${c.port}`,
      'content-type': 'application/json',
      'x-forwarded-for': client,
    },
    JSON.stringify({ token }),
  );

describe('sign-in limits behind a proxy', () => {
  it('a client that fails over and over does not lock out the others behind the same proxy', async () => {
    const attacker = [];
    for (let i = 0; i < 4; i++)
      attacker.push((await signIn(proxied, `wrong-${i}-${'x'.repeat(20)}`, '198.51.100.66')).status);
    expect(attacker).toEqual([401, 401, 401, 429]);
    // another browser behind the same Ingress signs in
    expect((await signIn(proxied, admin, '198.51.100.20')).status).toBe(200);
  });

  it('the forwarded address is the rightmost one the proxy vouches for: a client cannot choose its key', async () => {
    const statuses = [];
    // the attacker writes its own X-Forwarded-For, new each time; the proxy appends the real address
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await signIn(proxied, `wrong-${i}-${'y'.repeat(20)}`, `10.9.9.${i}, 198.51.100.77`)).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('without a trusted proxy X-Forwarded-For is ignored: one address, one bucket', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await signIn(direct, `wrong-${i}-${'z'.repeat(20)}`, `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('limits each person too, whatever client they come from', async () => {
    const viewer = h.cluster.users.viewer.token;
    expect((await signIn(proxied, viewer, '192.0.2.1')).status).toBe(200);
    expect((await signIn(proxied, viewer, '192.0.2.2')).status).toBe(200);
    const third = await signIn(proxied, viewer, '192.0.2.3');
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body).error).toMatch(/too many sign-ins for this person: try again in \d+ s/);
  });
});
