// Attack (issue 23, 6): a session cookie planted from another port. Cookies ignore ports: any
// server on the same host over plain HTTP may set `palisade_session_<port>` with a longer Path,
// and the browser then sends it first — the console took the first value, so the planted
// session (the attacker's own, signed in as a viewer) overrode the victim's and the victim
// acted, and typed, as the attacker. Now a request that carries the session cookie twice uses
// neither (401 cookie_conflict, both cleared), and a value this install did not seal (its
// per-install cookie key) is no session at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf } from '../test/client.js';
import { cookiesOf, rawRequest } from './harness.js';

let h: ClusterAndConsole;
let c: Console;
let victim: string;
let planted: string;

const own = () => ({ host: `127.0.0.1:${c.port}`, origin: `http://127.0.0.1:${c.port}` });

async function signIn(token: string) {
  const r = await rawRequest(
    c.port,
    'POST',
    '/auth/token',
    { ...own(), 'content-type': 'application/json' },
    JSON.stringify({ token }),
  );
  expect(r.status).toBe(200);
  return cookiesOf(r.headers)[0];
}

const whoIs = async (cookie: string) => {
  const r = await rawRequest(c.port, 'GET', '/api/trpc/clusters.list', { ...own(), cookie });
  return {
    status: r.status,
    user: r.status === 200 ? JSON.parse(r.body).result.data[0].user?.name : undefined,
    r,
  };
};

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'attack-cookie', rack: 'k1', count: 1 });
  c = h.console;
  victim = await signIn(tokenOf(h.cluster.kc));
  // the attacker's own session: they are a viewer here
  planted = await signIn(h.cluster.users.viewer.token);
}, 120_000);

afterAll(() => h?.stop());

describe('a session cookie planted from another port', () => {
  it('sent before the victim’s (a longer Path) is a conflict: neither session acts', async () => {
    expect((await whoIs(victim)).user).not.toBe('viewer');
    const both = await whoIs(`${planted}; ${victim}`);
    expect(both.status).toBe(401);
    expect(JSON.parse(both.r.body)).toMatchObject({ code: 'cookie_conflict' });
    // every copy the path could carry is cleared, the planted one at /api and /api/trpc too
    const cleared = (both.r.headers['set-cookie'] ?? []).filter((l) => /Max-Age=0/.test(l));
    const paths = cleared.map((l) => /Path=([^;]+)/.exec(l)?.[1]);
    expect(paths).toEqual(expect.arrayContaining(['/', '/api', '/api/trpc', '/api/trpc/clusters.list']));
  });

  it('a page with two session cookies sends the browser to sign in again', async () => {
    const r = await rawRequest(c.port, 'GET', '/nodes', { ...own(), cookie: `${planted}; ${victim}` });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/signin?error=cookie');
  });

  it('a value this install did not seal is no session', async () => {
    const [name, value] = victim.split('=');
    const id = value.slice(0, value.lastIndexOf('.'));
    // the bare session id (as cookies were before), and one under another install's key
    expect((await whoIs(`${name}=${id}`)).status).toBe(401);
    expect((await whoIs(`${name}=${id}.AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(401);
    expect((await whoIs(victim)).status).toBe(200);
  });
});
