// Attack (issue 23, 6, tried against the test tier's provider): a provider outage signs
// everyone out. While the identity provider was briefly unreachable (a restart, a network
// blip) the first failed renewal ended every OIDC session at once. Now a renewal that fails
// because the provider is away is tried again with back-off (1 s, 2 s, 4 s ... 30 s) until the
// ID token itself expires; only a provider that refuses the grant (invalid_grant) ends a
// session at once. Each failure is logged with its cause and counted in /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { captureLogs } from '../test/logCapture.js';
import { type OidcRig, startOidcRig } from './oidcRig.js';
import { sessionKey } from '../auth/sessions.js';

const logs = captureLogs('info');
let rig: OidcRig;
/** the ID token's lifetime: renewal starts half way (lib/auth/sharedSession.ts oidcRenewDue) */
const ID_TOKEN_S = 14;

beforeAll(async () => {
  rig = await startOidcRig({
    name: 'attack-outage',
    ttl: { idToken: ID_TOKEN_S, accessToken: ID_TOKEN_S },
    console: { logger: logs.logger },
  });
}, 120_000);

afterAll(async () => {
  await rig?.idp.resume().catch(() => undefined);
  await rig?.stop();
});

const sessionOf = (cookie: string) => {
  const value = cookie.slice(cookie.indexOf('=') + 1);
  const key = sessionKey(value.slice(0, value.lastIndexOf('.')));
  return () => rig.console.auth.sessions.all().find((s) => s.sessionKey === key);
};
const retrying = () =>
  logs.of('oidc', 'OIDC provider unreachable: the session stays, its renewal is tried again');

describe('an identity provider that is briefly away', () => {
  it('ends no session: the renewal waits for it, and succeeds once it is back', async () => {
    const { cookie } = await rig.signIn(await rig.browser(), 'alice', 'alice-correct-horse');
    const session = sessionOf(cookie);
    const firstExpiry = session()!.oidc!.expiresAt!;
    const before = retrying().length;
    await rig.idp.suspend();
    try {
      await eventually(() => retrying().length > before, 'a renewal failed and is tried again', 20_000);
      const line = retrying().at(-1)!;
      expect(line).toMatchObject({ cause: 'connection-refused' });
      expect(String(line.err)).toMatch(/^connection refused/);
      // still signed in while the provider is away
      expect(session()).toBeDefined();
      expect((await rig.get('/api/trpc/clusters.list', { cookie })).status).toBe(200);
    } finally {
      await rig.idp.resume();
    }
    await eventually(
      () => (session()?.oidc?.expiresAt ?? 0) > firstExpiry,
      'renewed once the provider is back',
      20_000,
    );
    expect((await rig.get('/api/trpc/clusters.list', { cookie })).status).toBe(200);
    const text = await rig.console.auth.metrics.registry.metrics();
    expect(text).toMatch(
      /palisade_oidc_renewals_total\{outcome="retrying",cause="connection-refused"\} [1-9]/,
    );
    expect(text).toMatch(/palisade_oidc_renewals_total\{outcome="renewed",cause=""\} [1-9]/);
  }, 60_000);

  it('an outage that outlasts the ID token ends the session when the token expires, not before', async () => {
    const { cookie } = await rig.signIn(await rig.browser(), 'bob', 'bob-battery-staple');
    const session = sessionOf(cookie);
    const expiresAt = session()!.oidc!.expiresAt!;
    const before = retrying().length;
    await rig.idp.suspend();
    try {
      await eventually(() => retrying().length > before, 'a renewal failed and is tried again', 20_000);
      expect(session()).toBeDefined();
      await eventually(() => session() === undefined, 'the session ended', 30_000);
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      expect(
        logs.of('oidc', 'OIDC session not renewed before its ID token expired: ending it').length,
      ).toBeGreaterThan(0);
      expect((await rig.get('/api/trpc/clusters.list', { cookie })).status).toBe(401);
    } finally {
      await rig.idp.resume();
    }
  }, 60_000);
});
