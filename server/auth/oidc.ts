// Sign-in through an OpenID Connect identity provider (Dex, Keycloak, ...) with openid-client, an
// OpenID-certified relying party: the authorization code flow with PKCE, state and nonce. The
// ID token's claims become the person (lib/auth/claims.ts, the same mapping as kube-apiserver's),
// each cluster is asked who that is when Palisade impersonates them (SelfSubjectReview, which
// also proves Palisade may impersonate there), and the session then acts by impersonation.
// Tokens stay on the server; the refresh token renews the session before the ID token expires,
// and a failed renewal ends the session (its sockets close) instead of leaving it half alive.
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import * as client from 'openid-client';
import { principalFromClaims } from '../../lib/auth/claims.js';
import { type OidcFlow, openFlow, sealFlow } from '../../lib/auth/oidcFlow.js';
import { oidcRenewDue } from '../../lib/auth/sharedSession.js';
import { ImpersonationRefused, impersonationHeaders } from '../../lib/auth/impersonation.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { OidcConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { fetchTrusting } from './caFetch.js';
import { clientAddress, cookieValue, redirect, sendJson, sessionCookie } from './http.js';
import type { Principal } from './identity.js';
import type { Admitted, ConsoleAuth } from './service.js';
import type { Renewed, Session } from './sessions.js';
import { whoAmI } from './whoami.js';

/** A sign-in in progress: what the callback must find again (kept server-side, at most 10 minutes). */
const FLOW_TTL_MS = 10 * 60_000;
const RENEW_CHECK_MS = 5_000;

function safeNext(raw: string | null): string {
  // a path of ours, and short enough for the flow cookie
  return raw?.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\') && raw.length <= 1024
    ? raw
    : '/';
}

export class OidcSignIn {
  private config: client.Configuration | undefined;
  private discovering: Promise<client.Configuration> | undefined;
  private readonly renewing = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private readonly secret: string;

  constructor(
    private readonly cfg: OidcConfig,
    private readonly auth: ConsoleAuth,
    private readonly base: () => string,
    private readonly log: Logger,
  ) {
    this.secret = cfg.clientSecret ?? readFileSync(cfg.clientSecretFile!, 'utf8').trim();
    this.timer = setInterval(() => void this.renewDue(), RENEW_CHECK_MS);
    this.timer.unref();
  }

  get issuer() {
    return this.cfg.issuer;
  }

  stop() {
    clearInterval(this.timer);
  }

  private get flowCookie() {
    return `palisade_oidc_${new URL(this.base()).port || 'default'}`;
  }

  private redirectUri() {
    return `${this.base()}/auth/oidc/callback`;
  }

  /** Discovery, once; retried on the next sign-in if the provider was unreachable. */
  private discover(): Promise<client.Configuration> {
    if (this.config) return Promise.resolve(this.config);
    this.discovering ??= client
      .discovery(
        new URL(this.cfg.issuer),
        this.cfg.clientID,
        undefined,
        client.ClientSecretBasic(this.secret),
        this.cfg.caFile
          ? { [client.customFetch]: fetchTrusting(readFileSync(this.cfg.caFile, 'utf8')) }
          : undefined,
      )
      .then((c) => {
        if (this.cfg.caFile) c[client.customFetch] = fetchTrusting(readFileSync(this.cfg.caFile, 'utf8'));
        this.config = c;
        return c;
      })
      .finally(() => {
        this.discovering = undefined;
      });
    return this.discovering;
  }

  /** /auth/oidc/start and /auth/oidc/callback; false for any other path. */
  async route(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    _a: Admitted,
    path: string,
  ): Promise<boolean> {
    if (req.method !== 'GET') return false;
    if (path === '/auth/oidc/start') await this.start(req, res);
    else if (path === '/auth/oidc/callback') await this.callback(req, res);
    else return false;
    return true;
  }

  private async start(req: http.IncomingMessage, res: http.ServerResponse) {
    const admit = await this.auth.limits.signInFrom(clientAddress(req));
    if (!admit.ok)
      return sendJson(res, 429, {
        error: `too many sign-in attempts: try again in ${admit.retryAfterSeconds} s`,
      });
    let config: client.Configuration;
    try {
      config = await this.discover();
    } catch (e) {
      this.log.warn({ issuer: this.cfg.issuer, err: (e as Error).message }, 'OIDC discovery failed');
      return redirect(
        res,
        `/signin?error=oidc&detail=${encodeURIComponent(`cannot reach ${this.cfg.issuer}: ${(e as Error).message}`)}`,
      );
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const p: OidcFlow = {
      state: client.randomState(),
      verifier: client.randomPKCECodeVerifier(),
      nonce: client.randomNonce(),
      next: safeNext(url.searchParams.get('next')),
      at: Date.now(),
    };
    const to = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: this.cfg.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(p.verifier),
      code_challenge_method: 'S256',
      state: p.state,
      nonce: p.nonce,
    });
    // binds the flow to this browser, and carries it sealed (lib/auth/oidcFlow.ts) so that any
    // replica can finish it: the callback is a top-level navigation back from the provider,
    // which SameSite=Lax lets through (Strict would not)
    const flow = `${this.flowCookie}=${sealFlow(p, this.secret)}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=600${this.auth.https ? '; Secure' : ''}`;
    redirect(res, to.href, { 'set-cookie': flow });
  }

  private async callback(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', this.base());
    const state = url.searchParams.get('state') ?? '';
    const bound = cookieValue(req, this.flowCookie);
    const opened = bound ? openFlow(bound, this.secret, Date.now(), FLOW_TTL_MS) : undefined;
    const p = opened?.ok && opened.flow.state === state ? opened.flow : undefined;
    const clear = `${this.flowCookie}=; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0`;
    const fail = (why: string) => {
      this.log.warn({ reason: why }, 'OIDC sign-in refused');
      redirect(res, `/signin?error=oidc&detail=${encodeURIComponent(why)}`, { 'set-cookie': clear });
    };
    if (url.searchParams.get('error'))
      return fail(
        `${url.searchParams.get('error')}: ${url.searchParams.get('error_description') ?? ''}`.trim(),
      );
    if (!p) return fail('this sign-in was not started in this browser, or it took too long');
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(await this.discover(), url, {
        pkceCodeVerifier: p.verifier,
        expectedState: state,
        expectedNonce: p.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      return fail(`the provider's answer did not check out: ${(e as Error).message}`);
    }
    const signedIn = await this.principals(tokens.claims() ?? {});
    if ('error' in signedIn) return fail(signedIn.error);
    const { id } = await this.auth.sessions.create(
      {
        method: 'oidc',
        credential: { kind: 'impersonate', as: signedIn.principal },
        principals: signedIn.principals,
      },
      {
        refreshToken: tokens.refresh_token,
        idToken: tokens.id_token,
        expiresAt: expiry(tokens),
        issuedAt: Date.now(),
      },
    );
    this.log.info(
      {
        user: signedIn.principal.username,
        groups: signedIn.principal.groups,
        // groups outside auth.oidc.allowedGroups: the person acts without their bindings
        ...(signedIn.leftOut.length ? { groupsLeftOut: signedIn.leftOut } : {}),
      },
      'signed in through OIDC',
    );
    redirect(res, p.next, { 'set-cookie': [sessionCookie(this.auth.cookie, id), clear] });
  }

  /** The person from the claims, and who each cluster says they are when impersonated. */
  private async principals(
    claims: Record<string, unknown>,
  ): Promise<
    { principal: Principal; principals: Map<ClusterId, Principal>; leftOut: string[] } | { error: string }
  > {
    const mapped = principalFromClaims(claims, this.cfg);
    if (!mapped.ok) return { error: mapped.reason };
    try {
      impersonationHeaders(mapped.principal);
    } catch (e) {
      if (e instanceof ImpersonationRefused) return { error: e.message };
      throw e;
    }
    const principals = new Map<ClusterId, Principal>();
    const refusals: string[] = [];
    await Promise.all(
      [...this.auth.clusters.values()].map(async (c) => {
        const who = await whoAmI(c, { kind: 'impersonate', as: mapped.principal });
        if (who.ok) principals.set(c.id, who.principal);
        else refusals.push(who.message);
      }),
    );
    if (principals.size === 0)
      return {
        error: `no cluster lets Palisade act as ${mapped.principal.username}: ${refusals.join('; ')}`,
      };
    return { principal: mapped.principal, principals, leftOut: mapped.leftOut };
  }

  /**
   * Renew every OIDC session whose ID token expires soon; end those the provider will not
   * renew. With replicas, each sees every session due, and the store lets one of them renew it.
   */
  private async renewDue() {
    const now = Date.now();
    const due = this.auth.sessions.all().filter((s) => s.method === 'oidc' && oidcRenewDue(s.oidc, now));
    await Promise.all(due.map((s) => this.renew(s)));
  }

  private async renew(s: Session) {
    // a slow provider must not see the same refresh token twice from this replica either
    if (this.renewing.has(s.sessionKey)) return;
    this.renewing.add(s.sessionKey);
    try {
      const renewed = await this.auth.sessions.renew(s.sessionKey, (oidc) => this.refresh(oidc));
      if (renewed) this.log.debug({ session: s.sessionKey.slice(0, 8) }, 'OIDC session renewed');
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'OIDC session not renewed: ending it');
    } finally {
      this.renewing.delete(s.sessionKey);
    }
  }

  /** New tokens for these, and who the provider now says the person is. */
  private async refresh(oidc: Session['oidc']): Promise<Renewed> {
    const refreshToken = oidc?.refreshToken;
    if (!refreshToken) throw new Error('the session has no refresh token');
    const tokens = await client.refreshTokenGrant(await this.discover(), refreshToken);
    const renewed: Renewed = {
      oidc: {
        refreshToken: tokens.refresh_token ?? refreshToken,
        idToken: tokens.id_token ?? oidc?.idToken,
        expiresAt: expiry(tokens),
        issuedAt: Date.now(),
      },
    };
    const claims = tokens.claims();
    if (claims) {
      // the provider may have changed the person's groups: act as it says now
      const again = await this.principals(claims);
      if ('error' in again) throw new Error(again.error);
      renewed.credential = { kind: 'impersonate', as: again.principal };
      renewed.principals = again.principals;
      this.auth.access.forget(renewed.credential);
    }
    return renewed;
  }
}

function expiry(t: { expiresIn(): number | undefined; claims(): { exp?: number } | undefined }): number {
  const exp = t.claims()?.exp;
  if (exp) return exp * 1000;
  const inS = t.expiresIn();
  return Date.now() + (inS ?? 300) * 1000;
}
