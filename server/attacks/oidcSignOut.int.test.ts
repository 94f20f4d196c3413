// Attack (issue 23, 6, tried against the test tier's provider): "Sign out" that signs nobody
// out of the identity provider. The console dropped its own session only: the provider's
// session stayed, so on a shared machine the next person pressing "Sign in" was signed in as
// the last one without a password, and the refresh token stayed valid. Now sign-out revokes
// the refresh token (RFC 7009) and sends the browser to the provider's end_session endpoint
// (RP-initiated logout, with the ID token as hint), which ends the provider's session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcError } from '../../testenv/oidc/index.js';
import { sessionKey } from '../auth/sessions.js';
import { type OidcRig, startOidcRig } from './oidcRig.js';

let rig: OidcRig;

beforeAll(async () => {
  rig = await startOidcRig({ name: 'attack-signout' });
}, 120_000);

afterAll(() => rig?.stop());

const own = () => `http://127.0.0.1:${rig.port}`;
const sessionOf = (cookie: string) => {
  const value = cookie.slice(cookie.indexOf('=') + 1);
  const key = sessionKey(value.slice(0, value.lastIndexOf('.')));
  return rig.console.auth.sessions.all().find((s) => s.sessionKey === key)!;
};

/** The browser at the provider's sign-out page: it confirms, and is sent back. */
async function confirmLogout(browser: Awaited<ReturnType<OidcRig['browser']>>, url: string): Promise<URL> {
  const page = await browser.browse(url);
  const form = /<form[^>]*action="([^"]*)"[^>]*>\s*<input[^>]*name="xsrf"[^>]*value="([^"]*)"/.exec(
    page.body,
  );
  expect(form, `the provider's sign-out page: ${page.body.slice(0, 300)}`).toBeTruthy();
  const action = new URL(form![1].replace(/&amp;/g, '&'), url);
  let reply = await browser.browse(action, { form: { xsrf: form![2], logout: 'yes' } });
  let at = action;
  for (let i = 0; i < 5 && reply.status >= 300 && reply.status < 400; i++) {
    at = new URL(reply.headers.location!, at);
    if (at.origin !== new URL(rig.idp.issuer).origin) break;
    reply = await browser.browse(at);
  }
  return at;
}

describe('signing out of an OIDC session', () => {
  it('ends the provider’s session too: the next sign-in asks for the password', async () => {
    const browser = await rig.browser();
    const { cookie } = await rig.signIn(browser, 'alice', 'alice-correct-horse');
    // as things were: signed in at the provider, a second sign-in needs no password
    const again = await rig.get('/auth/oidc/start');
    await expect(browser.actAsBrowser(again.headers.location!, 'alice', 'not-asked')).resolves.toBeDefined();

    const out = await rig.get('/auth/signout', { cookie, origin: own() }, 'POST', '{}');
    expect(out.status).toBe(200);
    const { logout } = JSON.parse(out.body) as { logout?: string };
    expect(logout, 'the sign-out answer names the provider’s end_session URL').toBeTruthy();
    const end = new URL(logout!);
    expect(end.origin).toBe(new URL(rig.idp.issuer).origin);
    expect(end.searchParams.get('id_token_hint')).toBeTruthy();
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${own()}/`);
    // the browser follows it, confirms, and comes back to the console
    expect((await confirmLogout(browser, logout!)).href).toBe(`${own()}/`);

    // the next "Sign in" in this browser shows the provider's password form again
    const next = await rig.get('/auth/oidc/start');
    await expect(browser.actAsBrowser(next.headers.location!, 'alice', 'wrong-password')).rejects.toThrow(
      /Wrong username or password/,
    );
    // and the console session is gone
    expect((await rig.get('/api/trpc/clusters.list', { cookie })).status).toBe(401);
  });

  it('revokes the refresh token: it renews nothing afterwards', async () => {
    const browser = await rig.browser();
    const { cookie } = await rig.signIn(browser, 'bob', 'bob-battery-staple');
    const refreshToken = sessionOf(cookie).oidc!.refreshToken!;
    expect(refreshToken).toBeTruthy();
    const out = await rig.get('/auth/signout', { cookie, origin: own() }, 'POST', '{}');
    expect(out.status).toBe(200);
    const err = await browser.refresh(refreshToken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OidcError);
    expect((err as OidcError).message).toMatch(/invalid_grant/);
  });

  it('"sign out everywhere" revokes every session of the person', async () => {
    const a = await rig.signIn(await rig.browser(), 'alice', 'alice-correct-horse');
    const b = await rig.signIn(await rig.browser(), 'alice', 'alice-correct-horse');
    const tokens = [sessionOf(a.cookie).oidc!.refreshToken!, sessionOf(b.cookie).oidc!.refreshToken!];
    const out = await rig.get(
      '/auth/signout',
      { cookie: a.cookie, origin: own() },
      'POST',
      '{"everywhere":true}',
    );
    expect(out.status).toBe(200);
    const browser = await rig.browser();
    for (const t of tokens) await expect(browser.refresh(t)).rejects.toThrow(/invalid_grant/);
    expect((await rig.get('/api/trpc/clusters.list', { cookie: b.cookie })).status).toBe(401);
  });
});
