// openid-client 6 (the library Palisade's relying party uses, server/auth/) against the test
// provider: discovery, the code flow with PKCE, state and nonce checks, refresh, the logout
// URL. openid-client sends its secret with client_secret_post unless told ClientSecretBasic;
// oidc-provider 9 takes either, whichever method the client is registered with (checked here).
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcTestClient, send } from './flow.js';
import type { ClientSpec } from './provider.js';
import { type IdentityProvider, startIdentityProvider } from './server.js';

const CALLBACK = 'http://127.0.0.1:39999/auth/oidc/callback';
const postClient: ClientSpec = {
  clientId: 'palisade',
  clientSecret: 'palisade-secret',
  redirectUris: [CALLBACK],
  tokenEndpointAuthMethod: 'client_secret_post',
};
const basicClient: ClientSpec = {
  clientId: 'palisade-basic',
  clientSecret: 'basic-secret',
  redirectUris: [CALLBACK],
};

describe('openid-client 6 against the test identity provider', () => {
  let idp: IdentityProvider;
  /** fetch that trusts the provider's CA (a server would set NODE_EXTRA_CA_CERTS instead) */
  let trustingFetch: client.CustomFetch;

  beforeAll(async () => {
    idp = await startIdentityProvider({ clients: [postClient, basicClient], ttl: { idToken: 30 } });
    trustingFetch = async (url, options) => {
      const headers: Record<string, string> = {};
      new Headers(options.headers as HeadersInit).forEach((v, k) => {
        headers[k] = v;
      });
      const body = options.body == null ? undefined : String(options.body);
      const r = await send(url, { method: options.method, headers, body, ca: idp.caPem });
      const h = new Headers();
      for (const [k, v] of Object.entries(r.headers))
        for (const x of [v ?? []].flat()) h.append(k, String(x));
      return new Response(r.status === 204 ? null : r.body, { status: r.status, headers: h });
    };
  });
  afterAll(() => idp?.stop());

  async function signInWith(spec: ClientSpec, auth?: client.ClientAuth) {
    const config = await client.discovery(new URL(idp.issuer), spec.clientId, spec.clientSecret, auth, {
      [client.customFetch]: trustingFetch,
    });
    config[client.customFetch] = trustingFetch;
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid profile email groups offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const browser = await OidcTestClient.discover(idp, spec);
    const callback = await browser.actAsBrowser(url, 'alice', 'alice-correct-horse');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    return { config, tokens };
  }

  it('signs alice in, refreshes, and builds the logout URL (client_secret_post, its default)', async () => {
    const { config, tokens } = await signInWith(postClient);
    expect(tokens.claims()).toMatchObject({
      iss: idp.issuer,
      aud: 'palisade',
      preferred_username: 'alice',
      groups: ['shop-admins', 'palisade-operators'],
    });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()?.groups).toEqual(['shop-admins', 'palisade-operators']);
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: refreshed.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:39999/',
    });
    expect(logout.origin + logout.pathname).toBe(`${idp.issuer}/session/end`);
  });

  it('takes the secret in the body or in Basic, whichever method the client is registered with', async () => {
    for (const spec of [basicClient, postClient]) {
      const viaPost = await signInWith(spec);
      expect(viaPost.tokens.claims()?.aud).toBe(spec.clientId);
      const viaBasic = await signInWith(spec, client.ClientSecretBasic(spec.clientSecret));
      expect(viaBasic.tokens.claims()?.aud).toBe(spec.clientId);
    }
    await expect(signInWith({ ...postClient, clientSecret: 'wrong' })).rejects.toMatchObject({
      error: 'invalid_client',
    });
  });
});
