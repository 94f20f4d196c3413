// oidc-provider configured as the test tier's identity provider: the authorization code flow
// with PKCE required, refresh tokens that rotate, RS256 ID tokens carrying the profile, email
// and groups claims (not only from the userinfo endpoint: kube-apiserver reads the ID token),
// RP-initiated logout, and sign-in through our own interaction routes (a password form).
// Consent is given on the user's behalf: every client is the caller's own.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { type KoaContext, type Middleware, Provider, errors } from 'oidc-provider';
import { errorPage, loggedOutPage, loginPage, logoutPage } from './pages.js';
import { type UserStore, userClaims } from './users.js';

export interface ClientSpec {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** where end_session may send the browser back (default: each redirect URI's origin + '/') */
  postLogoutRedirectUris?: string[];
  /**
   * The token endpoint auth method the client is registered with (default client_secret_basic,
   * the OpenID Connect default) and OidcTestClient uses. oidc-provider 9 accepts the secret by
   * either method whichever is registered (checked), so openid-client's default
   * (client_secret_post) works with both.
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** shown on the sign-in page (default the client id) */
  name?: string;
}

/** Lifetimes in seconds. */
export interface TokenLifetimes {
  idToken?: number;
  accessToken?: number;
  /** of each refresh token; a rotated one gets a fresh lifetime */
  refreshToken?: number;
  /**
   * of the sign-in session (the provider's cookie), counted from the sign-in: using the session
   * does not extend it (oidc-provider's own default would, on every authorization request)
   */
  session?: number;
  /** of the consent record that refresh tokens hang on (default the longer of refreshToken and session) */
  grant?: number;
  authorizationCode?: number;
  /** of a sign-in in progress (from the authorization request to the submitted form) */
  interaction?: number;
}

export const DEFAULT_LIFETIMES: Required<Omit<TokenLifetimes, 'grant'>> = {
  idToken: 300,
  accessToken: 300,
  refreshToken: 8 * 3600,
  session: 8 * 3600,
  authorizationCode: 60,
  interaction: 600,
};

export const SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access'] as const;

export interface ProviderInput {
  issuer: string;
  users: UserStore;
  clients: ClientSpec[];
  ttl?: TokenLifetimes;
}

function lifetimes(ttl: TokenLifetimes = {}) {
  const t = { ...DEFAULT_LIFETIMES, ...ttl };
  for (const [k, v] of Object.entries(t))
    if (!Number.isInteger(v) || v <= 0)
      throw new Error(`ttl.${k} must be a positive whole number of seconds`);
  const grant = ttl.grant ?? Math.max(t.refreshToken, t.session);
  return { ...t, grant };
}

function clientMetadata(c: ClientSpec) {
  if (!c.clientId || !c.clientSecret || !c.redirectUris?.length)
    throw new Error('every client needs clientId, clientSecret and at least one redirect URI');
  return {
    client_id: c.clientId,
    client_secret: c.clientSecret,
    client_name: c.name ?? c.clientId,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris ?? [
      ...new Set(c.redirectUris.map((u) => `${new URL(u).origin}/`)),
    ],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: c.tokenEndpointAuthMethod ?? 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
  };
}

async function signingKey(): Promise<Record<string, unknown>> {
  const { privateKey } = await new Promise<{ privateKey: import('node:crypto').KeyObject }>(
    (resolve, reject) =>
      generateKeyPair('rsa', { modulusLength: 2048 }, (err, _pub, priv) =>
        err ? reject(err) : resolve({ privateKey: priv }),
      ),
  );
  // oidc-provider derives the kid (the key's thumbprint) itself
  return { ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' };
}

/** Give the scopes and claims asked for: the provider then needs no consent prompt. */
async function grantRequested(ctx: any) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
  const found = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  const grant =
    found ?? new oidc.provider.Grant({ accountId: oidc.account.accountId, clientId: oidc.client.clientId });
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
  grant.addOIDCClaims([...oidc.requestParamClaims]);
  await grant.save();
  return grant;
}

async function readForm(ctx: KoaContext, limit = 16 * 1024): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(ctx.get('content-type'))) return new URLSearchParams();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.length;
    if (size > limit) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** GET /interaction/:uid shows the form; POST /interaction/:uid/login checks the password */
function interactionRoutes(provider: Provider, users: UserStore, input: ProviderInput): Middleware {
  const names = new Map(input.clients.map((c) => [c.clientId, c.name ?? c.clientId]));
  const html = (ctx: KoaContext, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = body;
  };
  return async (ctx, next) => {
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(ctx.path);
    if (!m) return next();
    ctx.set('cache-control', 'no-store');
    const [, uid, login] = m;
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (e) {
      if (e instanceof errors.SessionNotFound)
        return html(
          ctx,
          400,
          errorPage({ error: 'session_not_found', error_description: (e as any).error_description }),
        );
      throw e;
    }
    if (details.uid !== uid) return html(ctx, 400, errorPage({ error: 'interaction mismatch' }));
    const clientName = names.get(details.params.client_id) ?? details.params.client_id;
    const form = { action: `/interaction/${uid}/login`, issuer: input.issuer, clientName };

    if (details.prompt.name === 'consent') {
      // asked for explicitly (prompt=consent): the caller's clients are trusted, so say yes
      if (ctx.method !== 'GET') return html(ctx, 405, errorPage({ error: 'method not allowed' }));
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session!.accountId!, clientId: details.params.client_id });
      const d = details.prompt.details;
      if (d.missingOIDCScope) grant!.addOIDCScope(d.missingOIDCScope.join(' '));
      if (d.missingOIDCClaims) grant!.addOIDCClaims(d.missingOIDCClaims);
      const grantId = await grant!.save();
      (ctx as any).respond = false; // interactionFinished answers on the raw response
      return provider.interactionFinished(ctx.req, ctx.res, { consent: details.grantId ? {} : { grantId } });
    }
    if (details.prompt.name !== 'login')
      return html(ctx, 501, errorPage({ error: `prompt ${details.prompt.name}` }));

    if (!login) {
      if (ctx.method !== 'GET') return html(ctx, 405, errorPage({ error: 'method not allowed' }));
      return html(ctx, 200, loginPage({ ...form, username: details.params.login_hint }));
    }
    if (ctx.method !== 'POST') return html(ctx, 405, errorPage({ error: 'method not allowed' }));
    const body = await readForm(ctx);
    const username = body.get('username') ?? '';
    const user = await users.verify(username, body.get('password') ?? '');
    if (!user) return html(ctx, 200, loginPage({ ...form, username, error: 'Wrong username or password.' }));
    (ctx as any).respond = false;
    return provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: user.sub, amr: ['pwd'] } },
      { mergeWithLastSubmission: false },
    );
  };
}

export async function createProvider(input: ProviderInput): Promise<Provider> {
  const ttl = lifetimes(input.ttl);
  const { users } = input;
  const provider = new Provider(input.issuer, {
    clients: input.clients.map(clientMetadata),
    jwks: { keys: [await signingKey()] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    async findAccount(_ctx: unknown, sub: string) {
      const user = users.bySubject(sub);
      return user && { accountId: sub, claims: async () => userClaims(user) };
    },
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
    },
    // release the scopes' claims in the ID token too (the default keeps them for userinfo when
    // an access token is issued); kube-apiserver and Palisade read them from the ID token
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: () => true },
    // tokens expire at their lifetime to the second (oidc-provider's default lets an opaque
    // access token work 15 s past its exp)
    clockTolerance: 0,
    rotateRefreshToken: true,
    // OpenID Connect Core drops offline_access unless prompt=consent is sent too (oidc-provider
    // does); a refresh token is issued anyway, as Keycloak does, and then ends with the sign-in
    // session (expiresWithSession's default) unless offline_access was granted
    issueRefreshToken: async (_ctx: unknown, client: any) => client.grantTypeAllowed('refresh_token'),
    loadExistingGrant: grantRequested,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      // a relying party revokes its refresh token when the person signs out
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: any, token: any) => token.clientId === client.clientId,
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContext & { host: string }, form: string) => {
          ctx.type = 'html';
          ctx.body = logoutPage(form, ctx.host);
        },
        postLogoutSuccessSource: async (ctx: KoaContext) => {
          ctx.type = 'html';
          ctx.body = loggedOutPage(ctx.oidc?.client?.clientName);
        },
      },
    },
    clientBasedCORS: () => false,
    renderError: async (ctx: KoaContext, out: Record<string, unknown>) => {
      ctx.type = 'html';
      ctx.body = errorPage(out);
    },
    ttl: {
      IdToken: ttl.idToken,
      AccessToken: ttl.accessToken,
      RefreshToken: ttl.refreshToken,
      Session: (_ctx: unknown, session: { loginTs?: number }) =>
        session.loginTs
          ? Math.max(1, session.loginTs + ttl.session - Math.floor(Date.now() / 1000))
          : ttl.session,
      Grant: ttl.grant,
      AuthorizationCode: ttl.authorizationCode,
      Interaction: ttl.interaction,
      ClientCredentials: ttl.accessToken,
      DeviceCode: ttl.interaction,
      BackchannelAuthenticationRequest: ttl.interaction,
      PreAuthorizedCode: ttl.interaction,
    },
  });
  provider.use(interactionRoutes(provider, users, input));
  return provider;
}
