// The test identity provider over real HTTPS: discovery, the code flow with PKCE, the sign-in
// form, refresh with rotation, lifetimes, and RP-initiated logout. Driven by OidcTestClient
// (a relying party with a cookie jar), checked against the protocol's answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcError, OidcTestClient, SignInError, send } from './flow.js';
import type { ClientSpec } from './provider.js';
import { type IdentityProvider, startIdentityProvider } from './server.js';
import { defaultSub } from './users.js';

const CALLBACK = 'http://127.0.0.1:39999/auth/oidc/callback';
const palisade: ClientSpec = {
  clientId: 'palisade',
  clientSecret: 'palisade-secret',
  redirectUris: [CALLBACK],
};
const postClient: ClientSpec = {
  clientId: 'palisade-post',
  clientSecret: 'post-secret',
  redirectUris: [CALLBACK],
  tokenEndpointAuthMethod: 'client_secret_post',
};
const ALICE = ['alice', 'alice-correct-horse'] as const;

/** poll until check() holds or the deadline passes; returns the elapsed milliseconds */
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('test identity provider', () => {
  let idp: IdentityProvider;
  const logs: string[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider({ clients: [palisade, postClient], log: (m) => logs.push(m) });
  });
  afterAll(() => idp?.stop());

  const client = (spec = palisade) => OidcTestClient.discover(idp, spec);

  it('serves discovery and a JWKS with one RS256 signing key', async () => {
    const rp = await client();
    const m = rp.metadata;
    expect(m.issuer).toBe(idp.issuer);
    expect(idp.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(m).toMatchObject({
      authorization_endpoint: `${idp.issuer}/auth`,
      token_endpoint: `${idp.issuer}/token`,
      jwks_uri: `${idp.issuer}/jwks`,
      end_session_endpoint: `${idp.issuer}/session/end`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
    });
    expect(m.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'groups', 'offline_access']),
    );
    expect(m.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'preferred_username', 'email', 'email_verified', 'groups']),
    );
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    const jwks = JSON.parse((await send(m.jwks_uri, { ca: idp.caPem })).body);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    // without the CA the certificate is not trusted
    await expect(send(idp.discoveryUrl)).rejects.toThrow(/certificate|self.signed|verify/i);
  });

  it('signs alice in through the code flow with PKCE: an RS256 ID token with her claims', async () => {
    const rp = await client();
    const a = await rp.authorize(...ALICE);
    expect(a.callback.origin + a.callback.pathname).toBe(CALLBACK);
    expect(a.callback.searchParams.get('state')).toBe(a.state);
    expect(a.callback.searchParams.get('iss')).toBe(idp.issuer);
    const tokens = await rp.redeem(a);
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 300,
      refresh_token: expect.any(String),
    });
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'groups', 'openid', 'profile']);
    const header = JSON.parse(Buffer.from(tokens.id_token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('RS256');
    const claims = await rp.verifyIdToken(tokens.id_token, a.nonce);
    expect(claims).toMatchObject({
      iss: idp.issuer,
      aud: 'palisade',
      sub: defaultSub('alice'),
      preferred_username: 'alice',
      email: 'alice@example.test',
      email_verified: true,
      groups: ['shop-admins', 'palisade-operators'],
      nonce: a.nonce,
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(300);
    // the access token works at userinfo
    const info = await send(rp.metadata.userinfo_endpoint!, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
      ca: idp.caPem,
    });
    expect(JSON.parse(info.body)).toMatchObject({
      sub: defaultSub('alice'),
      groups: ['shop-admins', 'palisade-operators'],
    });
  });

  it('gives bob his group and carol no groups claim', async () => {
    const bob = await (await client()).signIn('bob', 'bob-battery-staple');
    expect(bob.claims).toMatchObject({ preferred_username: 'bob', groups: ['palisade-viewers'] });
    const carol = await (await client()).signIn('carol', 'carol-no-groups');
    expect(carol.claims.preferred_username).toBe('carol');
    expect(carol.claims).not.toHaveProperty('groups');
  });

  it('shows a labelled sign-in form, and an error on a wrong password without issuing anything', async () => {
    const rp = await client();
    const { url } = rp.authorizationRequest();
    const first = await rp.browse(url);
    expect(first.status).toBe(303);
    const form = await rp.browse(new URL(first.headers.location!, url));
    expect(form.status).toBe(200);
    expect(form.headers['content-type']).toMatch(/text\/html/);
    expect(form.body).toContain('<label for="username">Username</label>');
    expect(form.body).toContain('<input type="text" id="username" name="username"');
    expect(form.body).toContain('<label for="password">Password</label>');
    expect(form.body).toContain('<input type="password" id="password" name="password"');
    expect(form.body).toContain('<button type="submit">Sign in</button>');
    expect(form.body).not.toContain('role="alert"');

    await expect(rp.authorize('alice', 'wrong-password')).rejects.toThrow(SignInError);
    await expect(rp.authorize('alice', 'wrong-password')).rejects.toThrow('Wrong username or password.');
    await expect(rp.authorize('nobody', 'alice-correct-horse')).rejects.toThrow(
      'Wrong username or password.',
    );
    // the page keeps the name and says what went wrong; no session came of it
    const again = rp.authorizationRequest();
    const login = await rp.browse(new URL((await rp.browse(again.url)).headers.location!, again.url));
    expect(login.body).not.toContain('role="alert"');
    expect(rp.jar.names).not.toContain('_session');
  });

  it('refuses an authorization request without a PKCE challenge', async () => {
    const rp = await client();
    const err = await rp.authorize(...ALICE, { pkce: false }).catch((e) => e);
    expect(err).toBeInstanceOf(OidcError);
    expect(err.error).toBe('invalid_request');
    expect(err.errorDescription).toMatch(/requires PKCE/);
  });

  it('refuses a code redeemed without its PKCE verifier, or with another one', async () => {
    const rp = await client();
    const a = await rp.authorize(...ALICE);
    const missing = await rp.redeem({ code: a.code, redirectUri: a.redirectUri }).catch((e) => e);
    expect(missing).toBeInstanceOf(OidcError);
    expect(missing).toMatchObject({ status: 400, error: 'invalid_grant' });
    const b = await rp.authorize(...ALICE);
    const wrong = await rp.redeem({ ...b, codeVerifier: 'x'.repeat(43) }).catch((e) => e);
    expect(wrong).toMatchObject({ status: 400, error: 'invalid_grant' });
    // the right verifier on a fresh code works, and a code is good once only
    const c = await rp.authorize(...ALICE);
    await rp.redeem(c);
    await expect(rp.redeem(c)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a wrong client secret and an unregistered redirect URI', async () => {
    const rp = await OidcTestClient.discover(idp, { ...palisade, clientSecret: 'not-it' });
    const a = await rp.authorize(...ALICE);
    await expect(rp.redeem(a)).rejects.toMatchObject({ status: 401, error: 'invalid_client' });
    const bad = rp.authorizationRequest({ redirectUri: 'http://127.0.0.1:1/elsewhere' });
    const reply = await rp.browse(bad.url);
    expect(reply.status).toBe(400);
    expect(reply.headers.location).toBeUndefined();
    expect(reply.body).toContain(
      'redirect_uri did not match any of the client&#39;s registered redirect_uris',
    );
  });

  it('authenticates a client that sends its secret in the body (client_secret_post)', async () => {
    const { claims } = await (await client(postClient)).signIn(...ALICE);
    expect(claims).toMatchObject({ aud: 'palisade-post', preferred_username: 'alice' });
  });

  it('rotates refresh tokens: the new one works, the old one is refused (and its reuse revokes the grant)', async () => {
    const rp = await client();
    const { tokens, claims } = await rp.signIn(...ALICE);
    const r1 = await rp.refresh(tokens.refresh_token!);
    expect(r1.refresh_token).toBeDefined();
    expect(r1.refresh_token).not.toBe(tokens.refresh_token);
    const c1 = await rp.verifyIdToken(r1.id_token);
    expect(c1).toMatchObject({ sub: claims.sub, groups: ['shop-admins', 'palisade-operators'] });
    const r2 = await rp.refresh(r1.refresh_token!);
    expect(r2.refresh_token).not.toBe(r1.refresh_token);
    await expect(rp.refresh(tokens.refresh_token!)).rejects.toMatchObject({
      status: 400,
      error: 'invalid_grant',
    });
    expect(logs.some((l) => l.includes('refresh token already used'))).toBe(true);
    // presenting a rotated token again looks like theft: the whole grant goes, r2's token too
    await expect(rp.refresh(r2.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('grants offline_access only with prompt=consent (OpenID Connect Core), issuing refresh tokens either way', async () => {
    const rp = await client();
    const plain = await rp.signIn(...ALICE, { prompt: 'login' });
    expect(plain.tokens.scope?.split(' ')).not.toContain('offline_access');
    expect(plain.tokens.refresh_token).toBeDefined();
    const offline = await rp.signIn(...ALICE, { prompt: 'consent' });
    expect(offline.tokens.scope?.split(' ')).toContain('offline_access');
    expect(offline.tokens.refresh_token).toBeDefined();
  });

  it('keeps the session: a second sign-in in the same browser needs no password', async () => {
    const rp = await client();
    await rp.signIn(...ALICE);
    // the form is not shown again, so the (wrong) password is never checked
    const { claims } = await rp.signIn('alice', 'not-asked-for');
    expect(claims.preferred_username).toBe('alice');
    // prompt=login asks again
    await expect(rp.signIn('alice', 'wrong', { prompt: 'login' })).rejects.toThrow(SignInError);
  });

  it('signs out (RP-initiated logout): back to the post-logout URI with state, tokens and session gone', async () => {
    const rp = await client();
    const { tokens } = await rp.signIn(...ALICE);
    const back = await rp.signOut({
      idTokenHint: tokens.id_token,
      postLogoutRedirectUri: 'http://127.0.0.1:39999/',
      state: 'bye',
    });
    expect(back.href).toBe('http://127.0.0.1:39999/?state=bye');
    await expect(rp.refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // the next sign-in shows the form again
    await expect(rp.signIn('alice', 'not-asked-for')).rejects.toThrow(SignInError);
    // an unregistered post-logout URI is refused
    const { tokens: t2 } = await rp.signIn(...ALICE);
    await expect(
      rp.signOut({ idTokenHint: t2.id_token, postLogoutRedirectUri: 'http://evil.test/' }),
    ).rejects.toThrow(/HTTP 400/);
    // without a redirect URI the provider shows its own page
    const own = await rp.signOut({ idTokenHint: t2.id_token });
    expect(own.href).toBe(`${idp.issuer}/session/end/success`);
  });
});

/** wait for a moment to pass (a token's expiry), checking the clock every 100 ms */
const past = (epochMs: number) =>
  until(async () => Date.now() > epochMs, epochMs - Date.now() + 1_000, 'clock');

describe('test identity provider lifetimes', () => {
  let idp: IdentityProvider;
  const logs: string[] = [];
  beforeAll(async () => {
    idp = await startIdentityProvider({
      clients: [palisade],
      ttl: { idToken: 2, accessToken: 2, refreshToken: 3, session: 60 },
      log: (m) => logs.push(m),
    });
  });
  afterAll(() => idp?.stop());

  it('issues ID, access and refresh tokens that expire at the configured lifetimes', async () => {
    const rp = await OidcTestClient.discover(idp, palisade);
    const { tokens, claims } = await rp.signIn(...ALICE);
    expect(tokens.expires_in).toBe(2);
    expect((claims.exp as number) - (claims.iat as number)).toBe(2);
    const userinfo = () =>
      send(rp.metadata.userinfo_endpoint!, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
        ca: idp.caPem,
      });
    expect((await userinfo()).status).toBe(200);
    // the access token stops working once its 2 s are over: it was issued with the ID token,
    // in the same second or the one before its iat (the provider counts whole seconds). Judged
    // by wall-clock times of the requests themselves, so a slow machine (a late poll, a slow
    // answer) can neither pass nor fail it: no answer accepts the token after its exp, and none
    // refuses it before exp - 1 s.
    let lastAcceptedSentAt = 0;
    await until(
      async () => {
        const sentAt = Date.now();
        const status = (await userinfo()).status;
        if (status === 200) lastAcceptedSentAt = sentAt;
        else expect(Date.now()).toBeGreaterThanOrEqual(((claims.exp as number) - 1) * 1000);
        return status === 401;
      },
      6_000,
      'access token refused',
    );
    expect(lastAcceptedSentAt).toBeLessThan((claims.exp as number) * 1000);
    // the ID token's exp passes too: a verifier refuses it
    await until(
      () =>
        rp.verifyIdToken(tokens.id_token).then(
          () => false,
          (e) => /exp/.test(String(e)),
        ),
      3_000,
      'ID token expired',
    );
    // the refresh token was issued for 3 s: one issued now works until then, not after
    const r1 = await rp.refresh(tokens.refresh_token!);
    const issuedBy = Date.now();
    expect(r1.expires_in).toBe(2);
    await past(issuedBy + 3_000 + 500);
    await expect(rp.refresh(r1.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // (the in-memory store drops a token at its expiry, so the provider finds none)
    expect(logs.at(-1)).toMatch(/token endpoint error: invalid_grant.*refresh token (is expired|not found)/);
  });
});

describe('test identity provider sessions', () => {
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await startIdentityProvider({ clients: [palisade], ttl: { session: 2, refreshToken: 600 } });
  });
  afterAll(() => idp?.stop());

  it('ends the session at its lifetime: refresh tokens bound to it stop, offline ones go on', async () => {
    const rp = await OidcTestClient.discover(idp, palisade);
    const online = await rp.signIn(...ALICE);
    const offline = await rp.signIn(...ALICE, { prompt: 'consent' });
    const bound = (await rp.refresh(online.tokens.refresh_token!)).refresh_token!;
    // the session is gone when the provider asks for the password again
    const gone = await until(
      () =>
        rp.authorize('alice', 'wrong').then(
          () => false,
          (e) => e instanceof SignInError,
        ),
      6_000,
      'session expired',
    );
    expect(gone).toBeLessThan(6_000);
    await expect(rp.refresh(bound)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(rp.refresh(offline.tokens.refresh_token!)).resolves.toMatchObject({ token_type: 'Bearer' });
  });
});
