// A person signing in and out in Debian's Chromium (driven by Playwright, as the e2e tests
// do): Chromium trusts the provider through --ignore-certificate-errors-spki-list (the serving
// certificate's key hash), not by ignoring certificate errors; the sign-in form is found by
// its labels, a wrong password shows the error, the right one sends the browser back to the
// client with a code that redeems to alice's tokens; the sign-out button ends the session.
import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.js';
import { OidcTestClient } from './flow.js';
import type { ClientSpec } from './provider.js';
import { type IdentityProvider, startIdentityProvider } from './server.js';

const SKIP = existsSync(CHROMIUM_PATH)
  ? ''
  : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
if (SKIP) console.warn(`testenv/oidc/browser.int.test.ts skipped: ${SKIP}`);

describe.skipIf(!!SKIP)(`signing in with Chromium${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let idp: IdentityProvider;
  let browser: Browser;
  /** the client's pages: a plain page for the callback and the post-logout URI */
  let app: Server;
  let APP: string;
  let palisade: ClientSpec;

  beforeAll(async () => {
    app = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<title>Palisade</title><h1>back at Palisade</h1>'),
    );
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    APP = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
    palisade = {
      clientId: 'palisade',
      clientSecret: 'palisade-secret',
      redirectUris: [`${APP}/auth/oidc/callback`],
    };
    idp = await startIdentityProvider({ clients: [palisade] });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, ...idp.chromiumArgs],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await new Promise((resolve) => app?.close(resolve));
  });

  it('refuses the provider without the flag (its CA is nobody’s)', async () => {
    const plain = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await plain.newPage();
      await expect(page.goto(idp.discoveryUrl)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await plain.close();
    }
  });

  it('signs alice in through the form and out with the button', async () => {
    const rp = await OidcTestClient.discover(idp, palisade);
    const request = rp.authorizationRequest();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(request.url.href);

    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('not-her-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    expect(await page.getByLabel('Username').inputValue()).toBe('alice');
    expect(page.url()).toContain(`${idp.issuer}/interaction/`);

    await page.getByLabel('Password').fill('alice-correct-horse');
    await Promise.all([
      page.waitForURL(`${APP}/auth/oidc/callback?**`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(request.state);
    const tokens = await rp.redeem({
      code: callback.searchParams.get('code')!,
      redirectUri: request.redirectUri,
      codeVerifier: request.codeVerifier,
    });
    const claims = await rp.verifyIdToken(tokens.id_token, request.nonce);
    expect(claims).toMatchObject({
      preferred_username: 'alice',
      groups: ['shop-admins', 'palisade-operators'],
    });

    // RP-initiated logout: the provider asks, the person presses "Sign out"
    const end = new URL(rp.metadata.end_session_endpoint!);
    end.search = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: `${APP}/`,
      state: 'signed-out',
    }).toString();
    await page.goto(end.href);
    await Promise.all([
      page.waitForURL(`${APP}/?state=signed-out`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await expect(rp.refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    // the session is gone: a new sign-in shows the form again
    await page.goto(rp.authorizationRequest().url.href);
    await expect.poll(() => page.getByLabel('Password').isVisible()).toBe(true);
    await context.close();
  });
});
