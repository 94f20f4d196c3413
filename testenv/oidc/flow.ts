// A relying party plus browser over plain HTTPS, for tests that need a person's tokens without
// a browser: the real authorization code flow with PKCE (discovery, the authorization request,
// the provider's sign-in form submitted with a cookie jar, the code redeemed at the token
// endpoint), refresh, and RP-initiated logout. The ID token is checked (signature against the
// provider's JWKS, issuer, audience, nonce) before it is handed back.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type JWTPayload, createLocalJWKSet, jwtVerify } from 'jose';
import type { ClientSpec } from './provider.js';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An OAuth error from the provider (token endpoint, or the redirect back to the client). */
export class OidcError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly errorDescription?: string,
  ) {
    super(`${error}${errorDescription ? `: ${errorDescription}` : ''} (HTTP ${status})`);
  }
}

/** The sign-in form answered with an error instead of signing the person in. */
export class SignInError extends Error {}

interface Cookie {
  name: string;
  value: string;
  path: string;
  expires?: number;
}

/** Host-only cookies with path and expiry, enough for one provider on one origin. */
export class CookieJar {
  private cookies: Cookie[] = [];

  store(url: URL, setCookie: string[] | undefined) {
    for (const line of setCookie ?? []) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq), value: pair.slice(eq + 1), path: '/' };
      let defaultPath = url.pathname.replace(/\/[^/]*$/, '') || '/';
      for (const attr of attrs) {
        const [k, v = ''] = attr.split('=');
        const key = k.toLowerCase();
        if (key === 'path' && v.startsWith('/')) defaultPath = v;
        else if (key === 'max-age') cookie.expires = Date.now() + Number(v) * 1000;
        else if (key === 'expires' && cookie.expires === undefined) cookie.expires = Date.parse(v);
      }
      cookie.path = defaultPath;
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.path === cookie.path));
      if (cookie.expires === undefined || cookie.expires > Date.now()) this.cookies.push(cookie);
    }
  }

  header(url: URL): string | undefined {
    const now = Date.now();
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    const matching = this.cookies.filter(
      (c) =>
        url.pathname === c.path ||
        url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) ||
        c.path === '/',
    );
    // longer paths first, as browsers send them
    matching.sort((a, b) => b.path.length - a.path.length);
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  get names(): string[] {
    return this.cookies.map((c) => c.name);
  }
}

/** One HTTPS request that trusts `ca`; redirects are not followed. */
export function send(
  url: string | URL,
  opts: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {},
): Promise<Reply> {
  const u = new URL(url);
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, {
    method: opts.method ?? 'GET',
    headers: {
      ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}),
      ...opts.headers,
    },
    ca: opts.ca,
    timeout: 10_000,
  });
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${req.method} ${u} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  end_session_endpoint?: string;
  revocation_endpoint?: string;
  [key: string]: unknown;
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token: string;
  refresh_token?: string;
  scope?: string;
}

export interface SignedIn {
  tokens: TokenSet;
  /** the verified ID token's claims */
  claims: JWTPayload & Record<string, unknown>;
}

export interface AuthorizeOptions {
  /** default 'openid profile email groups offline_access' */
  scope?: string;
  /** send a PKCE challenge (default true); false shows that the provider refuses without one */
  pkce?: boolean;
  /** an OpenID `prompt` value, e.g. 'login' to sign in again although a session exists */
  prompt?: string;
  /** default the client's first redirect URI */
  redirectUri?: string;
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  /** undefined when the request carries no PKCE challenge */
  codeVerifier?: string;
  redirectUri: string;
}

export interface Authorized extends Omit<AuthorizationRequest, 'url'> {
  code: string;
  /** every parameter of the redirect back to the client */
  callback: URL;
}

const b64url = (b: Buffer) => b.toString('base64url');

export const DEFAULT_SCOPE = 'openid profile email groups offline_access';

/**
 * A relying party (one registered client) with its own browser (cookie jar): sign in, refresh,
 * sign out. Sign-ins after the first reuse the provider's session, as a browser would.
 */
export class OidcTestClient {
  readonly jar = new CookieJar();
  private jwks?: ReturnType<typeof createLocalJWKSet>;

  private constructor(
    readonly metadata: ProviderMetadata,
    readonly client: ClientSpec,
    readonly caPem: string,
  ) {}

  static async discover(idp: { issuer: string; caPem: string }, client: ClientSpec): Promise<OidcTestClient> {
    const reply = await send(`${idp.issuer}/.well-known/openid-configuration`, { ca: idp.caPem });
    if (reply.status !== 200) throw new Error(`discovery answered ${reply.status}: ${reply.body}`);
    const metadata = JSON.parse(reply.body) as ProviderMetadata;
    if (metadata.issuer !== idp.issuer)
      throw new Error(`discovery names issuer ${metadata.issuer}, not ${idp.issuer}`);
    return new OidcTestClient(metadata, client, idp.caPem);
  }

  /** a request as the browser: the jar's cookies go along, Set-Cookie comes back into it */
  async browse(
    url: string | URL,
    opts: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Reply> {
    const u = new URL(url);
    const cookie = this.jar.header(u);
    const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
    const reply = await send(u, {
      method: opts.method ?? (body ? 'POST' : 'GET'),
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
      ca: this.caPem,
    });
    const setCookie = reply.headers['set-cookie'];
    this.jar.store(u, setCookie);
    return reply;
  }

  /** follow redirects on the provider's origin; stop at a page or at a redirect elsewhere */
  private async follow(first: Reply, from: URL): Promise<{ reply: Reply; url: URL }> {
    let reply = first;
    let url = from;
    for (let hops = 0; reply.status >= 300 && reply.status < 400 && reply.headers.location; hops++) {
      if (hops > 10) throw new Error('too many redirects');
      const next = new URL(reply.headers.location, url);
      if (next.origin !== new URL(this.metadata.issuer).origin) return { reply, url: next };
      url = next;
      reply = await this.browse(url);
    }
    return { reply, url };
  }

  /**
   * The browser's part for any authorization URL (one built by another relying party too, e.g.
   * openid-client): open it, fill in the sign-in form if the provider shows it, and follow
   * the redirects until they leave the provider. Returns the URL the browser is sent to (the
   * client's redirect URI with code and state, or with an error). A wrong password throws
   * SignInError with the page's message.
   */
  async actAsBrowser(
    url: string | URL,
    username: string,
    password: string,
    redirectUri?: string,
  ): Promise<URL> {
    const start = new URL(url);
    let { reply, url: at } = await this.follow(await this.browse(start), start);
    if (reply.status === 200 && /<form[^>]*action="[^"]*\/login"/.test(reply.body)) {
      const action = new URL(decodeEntities(/<form[^>]*action="([^"]*)"/.exec(reply.body)![1]), at);
      const submitted = await this.browse(action, { form: { username, password } });
      if (submitted.status === 200) {
        const error = /role="alert"[^>]*>([^<]*)</.exec(submitted.body)?.[1];
        throw new SignInError(error ? decodeEntities(error) : 'the sign-in form came back without an error');
      }
      ({ reply, url: at } = await this.follow(submitted, action));
    }
    const to = redirectUri ?? start.searchParams.get('redirect_uri') ?? '';
    if (!(reply.status >= 300 && reply.status < 400) || !at.href.startsWith(to))
      throw new Error(
        `expected a redirect to ${to}, got HTTP ${reply.status} at ${at}: ${reply.body.slice(0, 500)}`,
      );
    return at;
  }

  /**
   * The front channel: the authorization request, the sign-in form (when the provider has no
   * session yet), and the redirect back to the client, whose code is returned (not redeemed).
   */
  /** a fresh authorization request (state, nonce, PKCE) for any user agent to open */
  authorizationRequest(opts: AuthorizeOptions = {}): AuthorizationRequest {
    const redirectUri = opts.redirectUri ?? this.client.redirectUris[0];
    const state = b64url(randomBytes(16));
    const nonce = b64url(randomBytes(16));
    const codeVerifier = opts.pkce === false ? undefined : b64url(randomBytes(32));
    const url = new URL(this.metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: this.client.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: opts.scope ?? DEFAULT_SCOPE,
      state,
      nonce,
      ...(codeVerifier
        ? {
            code_challenge: b64url(createHash('sha256').update(codeVerifier).digest()),
            code_challenge_method: 'S256',
          }
        : {}),
      ...(opts.prompt ? { prompt: opts.prompt } : {}),
    }).toString();
    return { url, state, nonce, codeVerifier, redirectUri };
  }

  /**
   * The front channel: the authorization request, the sign-in form (when the provider has no
   * session yet), and the redirect back to the client, whose code is returned (not redeemed).
   */
  async authorize(username: string, password: string, opts: AuthorizeOptions = {}): Promise<Authorized> {
    const { url, state, nonce, codeVerifier, redirectUri } = this.authorizationRequest(opts);
    const at = await this.actAsBrowser(url, username, password, redirectUri);
    const p = at.searchParams;
    if (p.get('state') !== state) throw new Error(`state mismatch: sent ${state}, got ${p.get('state')}`);
    if (p.get('error')) throw new OidcError(303, p.get('error')!, p.get('error_description') ?? undefined);
    if (p.get('iss') && p.get('iss') !== this.metadata.issuer)
      throw new Error(`iss mismatch: ${p.get('iss')}`);
    const code = p.get('code');
    if (!code) throw new Error(`no code in ${at}`);
    return { code, state, nonce, codeVerifier, redirectUri, callback: at };
  }

  private async tokenRequest(params: Record<string, string>): Promise<TokenSet> {
    const { clientId, clientSecret } = this.client;
    const post = this.client.tokenEndpointAuthMethod === 'client_secret_post';
    const form = new URLSearchParams({
      ...params,
      ...(post ? { client_id: clientId, client_secret: clientSecret } : {}),
    }).toString();
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
      'base64',
    );
    const reply = await send(this.metadata.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(post ? {} : { authorization: `Basic ${basic}` }),
      },
      body: form,
      ca: this.caPem,
    });
    const json = safeJson(reply.body);
    if (reply.status !== 200)
      throw new OidcError(reply.status, json?.error ?? 'http_error', json?.error_description);
    return json as TokenSet;
  }

  /** the back channel: the code for tokens (give the verifier unless testing its absence) */
  redeem(a: Pick<Authorized, 'code' | 'redirectUri'> & { codeVerifier?: string }): Promise<TokenSet> {
    return this.tokenRequest({
      grant_type: 'authorization_code',
      code: a.code,
      redirect_uri: a.redirectUri,
      ...(a.codeVerifier ? { code_verifier: a.codeVerifier } : {}),
    });
  }

  refresh(refreshToken: string): Promise<TokenSet> {
    return this.tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** the ID token's claims, once its signature, issuer, audience and (if given) nonce check out */
  async verifyIdToken(idToken: string, nonce?: string): Promise<JWTPayload & Record<string, unknown>> {
    if (!this.jwks) {
      const reply = await send(this.metadata.jwks_uri, { ca: this.caPem });
      if (reply.status !== 200) throw new Error(`JWKS answered ${reply.status}`);
      this.jwks = createLocalJWKSet(JSON.parse(reply.body));
    }
    const { payload } = await jwtVerify(idToken, this.jwks, {
      issuer: this.metadata.issuer,
      audience: this.client.clientId,
      algorithms: ['RS256'],
    });
    if (nonce !== undefined && payload.nonce !== nonce) throw new Error('nonce mismatch');
    return payload as JWTPayload & Record<string, unknown>;
  }

  /** authorize + redeem + verify: a person's tokens, as a relying party gets them */
  async signIn(username: string, password: string, opts: AuthorizeOptions = {}): Promise<SignedIn> {
    const a = await this.authorize(username, password, opts);
    const tokens = await this.redeem(a);
    return { tokens, claims: await this.verifyIdToken(tokens.id_token, a.nonce) };
  }

  /**
   * RP-initiated logout: the end_session request, the provider's "Sign out" button pressed.
   * Returns where the provider sent the browser (the post-logout redirect, or its own page).
   */
  async signOut(
    opts: { idTokenHint?: string; postLogoutRedirectUri?: string; state?: string } = {},
  ): Promise<URL> {
    if (!this.metadata.end_session_endpoint) throw new Error('the provider has no end_session_endpoint');
    const url = new URL(this.metadata.end_session_endpoint);
    url.search = new URLSearchParams({
      ...(opts.idTokenHint ? { id_token_hint: opts.idTokenHint } : { client_id: this.client.clientId }),
      ...(opts.postLogoutRedirectUri ? { post_logout_redirect_uri: opts.postLogoutRedirectUri } : {}),
      ...(opts.state ? { state: opts.state } : {}),
    }).toString();
    const page = await this.browse(url);
    const form = /<form[^>]*action="([^"]*)"[^>]*>\s*<input[^>]*name="xsrf"[^>]*value="([^"]*)"/.exec(
      page.body,
    );
    if (page.status !== 200 || !form)
      throw new Error(`no sign-out form (HTTP ${page.status}): ${page.body.slice(0, 300)}`);
    const action = new URL(decodeEntities(form[1]), url);
    const { reply, url: at } = await this.follow(
      await this.browse(action, { form: { xsrf: decodeEntities(form[2]), logout: 'yes' } }),
      action,
    );
    if (!(reply.status >= 300 && reply.status < 400) && reply.status !== 200)
      throw new Error(`sign-out answered ${reply.status}`);
    return at;
  }
}

function safeJson(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => named[e]);
}

/** One person's tokens from a provider, through the real flow (a fresh browser each call). */
export async function signIn(
  idp: { issuer: string; caPem: string },
  client: ClientSpec,
  username: string,
  password: string,
  opts: AuthorizeOptions = {},
): Promise<SignedIn> {
  return (await OidcTestClient.discover(idp, client)).signIn(username, password, opts);
}
