// Impersonation only with OIDC sign-in, on the embedded cluster (and PALISADE_CLUSTER=real): the
// chart grants `impersonate` only with auth.oidc.enabled, and a console without OIDC never acts
// as a person by impersonation — a session that would (kept from when OIDC was on, or written
// into the store by someone else) is refused and ended, before any call to the cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterAndConsole, rawRequest, startClusterAndConsole } from '../test/consoleHarness.js';

let h: ClusterAndConsole;

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'impersonation-test', rack: 'i1', count: 1 });
}, 120_000);
afterAll(() => h?.stop());

describe('a console without OIDC sign-in', () => {
  it('refuses and ends a session that would act by impersonation', async () => {
    const c = h.console;
    const { id, session } = await c.auth.sessions.create({
      method: 'oidc',
      credential: { kind: 'impersonate', as: { username: 'alice', groups: [] } },
      principals: new Map([['palisade-embedded', { username: 'alice', groups: [] }]]),
    });
    const origin = `http://127.0.0.1:${c.port}`;
    const r = await rawRequest(c.port, 'GET', '/api/trpc/clusters.list', {
      host: `127.0.0.1:${c.port}`,
      origin,
      cookie: `${c.auth.cookie.name}=${c.auth.cookieValueFor(id)}`,
    });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error).toContain('OIDC sign-in is off');
    expect(c.auth.sessions.all().map((s) => s.sessionKey)).not.toContain(session.sessionKey);
  });
});
