// Attack (issue 23, 6, tried against the test tier's provider): errors that hide their cause.
// A discovery or renewal that failed said only openid-client's "something went wrong", so an
// operator could not tell a provider that is down from a CA that is not trusted from a revoked
// grant. Now the sign-in page and the log name the cause: connection refused (with the
// address), TLS (Node's own words and code), invalid_grant (the provider's description).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { sessionKey } from '../auth/sessions.js';
import { freePort } from '../test/consoleHarness.js';
import { captureLogs } from '../test/logCapture.js';
import { rawRequest } from './harness.js';
import { type OidcRig, startOidcRig } from './oidcRig.js';

const logs = captureLogs('info');
let rig: OidcRig;
const others: Console[] = [];

beforeAll(async () => {
  rig = await startOidcRig({ name: 'attack-oidc-errors', console: { logger: logs.logger } });
}, 120_000);

afterAll(async () => {
  for (const c of others) await c.stop();
  await rig?.stop();
});

/** A console of its own on the rig's cluster with this auth.oidc. */
async function consoleWith(oidc: Partial<OidcRig['oidc']>) {
  const c = await startConsole({
    clusters: await clustersFromKubeconfig(join(rig.dir, 'kubeconfig')),
    ui: false,
    fencing: false,
    logger: logs.logger,
    auth: { oidc: { ...rig.oidc, ...oidc } },
  });
  others.push(c);
  return c;
}

/** What the sign-in page is told when the sign-in cannot start. */
async function startDetail(c: Console) {
  const r = await rawRequest(c.port, 'GET', '/auth/oidc/start', { host: `127.0.0.1:${c.port}` });
  expect(r.status).toBe(302);
  const to = new URL(r.headers.location!, 'http://x');
  expect(to.pathname).toBe('/signin');
  return to.searchParams.get('detail') ?? '';
}

describe('identity-provider errors name their cause', () => {
  it('discovery against a port nobody listens on: connection refused, with the address', async () => {
    const port = await freePort();
    const detail = await startDetail(await consoleWith({ issuer: `https://127.0.0.1:${port}` }));
    expect(detail).toContain(`connection refused (127.0.0.1:${port})`);
    expect(detail).not.toContain('something went wrong');
  });

  it('discovery against a certificate nobody told Palisade to trust: TLS, in Node’s words', async () => {
    const detail = await startDetail(await consoleWith({ caFile: undefined }));
    expect(detail).toMatch(
      /TLS: .*\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    expect(detail).not.toContain('something went wrong');
    expect(logs.of('oidc', 'OIDC discovery failed').some((l) => l.cause === 'tls')).toBe(true);
  });

  it('a renewal the provider refuses: invalid_grant, and the session ends at once', async () => {
    const { cookie } = await rig.signIn(await rig.browser(), 'alice', 'alice-correct-horse');
    const value = cookie.slice(cookie.indexOf('=') + 1);
    const key = sessionKey(value.slice(0, value.lastIndexOf('.')));
    const s = rig.console.auth.sessions.all().find((x) => x.sessionKey === key)!;
    // the provider no longer knows this refresh token (as after a revocation)
    s.oidc!.refreshToken = 'revoked';
    s.oidc!.expiresAt = Date.now() + 30_000;
    s.oidc!.issuedAt = Date.now() - 60_000;
    await eventually(
      () => !rig.console.auth.sessions.all().some((x) => x.sessionKey === key),
      'the session ended',
      20_000,
    );
    const line = logs.of('oidc', 'OIDC session not renewed: ending it').at(-1)!;
    expect(line).toMatchObject({ cause: 'invalid-grant' });
    expect(String(line.err)).toMatch(/^invalid_grant/);
    expect(await rig.console.auth.metrics.registry.metrics()).toMatch(
      /palisade_oidc_renewals_total\{outcome="ended",cause="invalid-grant"\} [1-9]/,
    );
  });
});
