// Sign-in through an OpenID Connect identity provider (Dex, Keycloak, ...) with openid-client, an
// OpenID-certified relying party: the authorization code flow with PKCE, state and nonce. The
// ID token's claims become the person (lib/auth/claims.ts, the same mapping as kube-apiserver's),
// each cluster is asked who that is when Palisade impersonates them (SelfSubjectReview, which
// also proves Palisade may impersonate there), and the session then acts by impersonation.
// Tokens stay on the server; the refresh token renews the session before the ID token expires.
// A provider that refuses the renewal (invalid_grant) ends the session (its sockets close); one
// that is away (refused connection, timeout, 5xx) is asked again with back-off until the ID
// token itself expires (lib/auth/oidcRenewal.ts), so a short outage ends no session. Every
// error names its cause (lib/auth/oidcErrors.ts), never openid-client's "something went wrong".
// Sign-out revokes the refresh token (RFC 7009) and sends the browser to the provider's
// end_session endpoint (RP-initiated logout), so the provider's own session ends too and the
// next sign-in asks for the password again.
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import * as client from 'openid-client';
import { principalFromClaims } from '../../lib/auth/claims.js';
import { type OidcFlow, openFlow, sealFlow } from '../../lib/auth/oidcFlow.js';
import { describeOidcError } from '../../lib/auth/oidcErrors.js';
import { afterFailedRenewal, type AfterFailure } from '../../lib/auth/oidcRenewal.js';
import { safeNext } from '../../lib/auth/redirect.js';
import { oidcRenewDue } from '../../lib/auth/sharedSession.js';
import { ImpersonationRefused, impersonationHeaders } from '../../lib/auth/impersonation.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import type { OidcConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { fetchTrusting } from './caFetch.js';
import { cookieValue, redirect, sessionCookie } from './http.js';
import type { Principal } from './identity.js';
import { signInLimited } from './routes.js';
import type { Admitted, ConsoleAuth } from './service.js';
import type { Renewed, Session } from './sessions.js';
import { whoAmI } from './whoami.js';

/** A sign-in in progress: what the callback must find again (kept server-side, at most 10 minutes). */
const FLOW_TTL_MS = 10 * 60_000;
const RENEW_CHECK_MS = 1_000;
/** sign-out does not wait longer than this for the provider to revoke a refresh token */
const REVOKE_TIMEOUT_MS = 3_000;

export class OidcSignIn {
  private config: client.Configuration | undefined;
  private discovering: Promise<client.Configuration> | undefined;
  private readonly renewing = new Set<string>();
  /** sessions whose renewal failed while the provider was away: how often, and when to try again */
  private readonly retries = new Map<string, { failures: number; at: number }>();
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

  /** where the provider sends the browser after its sign-out (registered with the provider) */
  private postLogoutUri() {
    return this.cfg.postLogoutRedirectURI ?? `${this.base()}/`;
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
    if (await signInLimited(this.auth, req, res, 'oidc')) return;
    let config: client.Configuration;
    try {
      config = await this.discover();
    } catch (e) {
      const p = describeOidcError(e);
      this.log.warn({ issuer: this.cfg.issuer, cause: p.cause, err: p.words }, 'OIDC discovery failed');
      return redirect(
        res,
        `/signin?error=oidc&detail=${encodeURIComponent(`cannot read the provider's configuration at ${this.cfg.issuer}: ${p.words}`)}`,
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
    const client_ = this.auth.clientOf(req);
    const fail = async (why: string) => {
      await this.auth.limits.failed(client_);
      this.auth.failedAttempt('oidc', client_, why);
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
      return fail(`the provider's answer did not check out: ${describeOidcError(e).words}`);
    }
    const signedIn = await this.principals(tokens.claims() ?? {});
    if ('error' in signedIn) return fail(signedIn.error);
    const person = await this.auth.limits.authenticated(signedIn.principal.username);
    if (!person.ok) return fail(this.auth.limited(person, 'oidc', client_).refusal);
    this.auth.metrics.attempts.inc({ method: 'oidc', outcome: 'ok' });
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
    // checked again: a flow sealed by an older replica may carry a next that today's rule refuses
    redirect(res, safeNext(p.next), {
      'set-cookie': [sessionCookie(this.auth.cookie, this.auth.cookieValueFor(id)), clear],
    });
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
    const live = new Set<string>();
    const due = this.auth.sessions.all().filter((s) => {
      live.add(s.sessionKey);
      const retry = this.retries.get(s.sessionKey);
      return s.method === 'oidc' && oidcRenewDue(s.oidc, now) && (!retry || retry.at <= now);
    });
    for (const k of this.retries.keys()) if (!live.has(k)) this.retries.delete(k);
    await Promise.all(due.map((s) => this.renew(s)));
  }

  private async renew(s: Session) {
    const key = s.sessionKey;
    // a slow provider must not see the same refresh token twice from this replica either
    if (this.renewing.has(key)) return;
    this.renewing.add(key);
    let after: AfterFailure | undefined;
    try {
      const renewed = await this.auth.sessions.renew(
        key,
        (oidc) => this.refresh(oidc),
        // the provider away: the session stays (and is tried again) until its ID token expires
        (e) => {
          const failures = (this.retries.get(key)?.failures ?? 0) + 1;
          after = afterFailedRenewal(describeOidcError(e), Date.now(), s.oidc?.expiresAt, failures);
          return !after.end;
        },
      );
      if (renewed) {
        this.retries.delete(key);
        this.auth.metrics.oidcRenewals.inc({ outcome: 'renewed', cause: '' });
        this.log.debug({ session: key.slice(0, 8) }, 'OIDC session renewed');
      }
    } catch (e) {
      const p = describeOidcError(e);
      const fields = { session: key.slice(0, 8), issuer: this.cfg.issuer, cause: p.cause, err: p.words };
      if (after && !after.end) {
        const failures = (this.retries.get(key)?.failures ?? 0) + 1;
        this.retries.set(key, { failures, at: after.at });
        this.auth.metrics.oidcRenewals.inc({ outcome: 'retrying', cause: p.cause });
        this.log.warn(
          { ...fields, failures, retryInMs: after.at - Date.now(), expiresAt: s.oidc?.expiresAt },
          'OIDC provider unreachable: the session stays, its renewal is tried again',
        );
      } else {
        this.retries.delete(key);
        this.auth.metrics.oidcRenewals.inc({ outcome: 'ended', cause: p.cause });
        this.log.warn(
          { ...fields, why: after?.end ? after.why : 'refused' },
          after?.end && after.why === 'expired'
            ? 'OIDC session not renewed before its ID token expired: ending it'
            : 'OIDC session not renewed: ending it',
        );
      }
    } finally {
      this.renewing.delete(key);
    }
  }

  /**
   * Sign-out of these sessions (the person's, or all of theirs): each refresh token revoked at
   * the provider (RFC 7009; a provider that is away delays sign-out at most a few seconds), and
   * where the browser goes next to end the provider's own session (its end_session endpoint),
   * undefined when the provider has none.
   */
  async signOut(current: Session, all: Session[]): Promise<string | undefined> {
    let config: client.Configuration;
    try {
      config = await this.discover();
    } catch (e) {
      this.log.warn(
        { err: describeOidcError(e).words },
        'OIDC sign-out: the provider cannot be reached to revoke tokens',
      );
      return undefined;
    }
    await Promise.all(
      all
        .filter((s) => s.method === 'oidc' && s.oidc?.refreshToken)
        .map((s) => this.revoke(config, s.oidc!.refreshToken!, s.sessionKey)),
    );
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, {
      post_logout_redirect_uri: this.postLogoutUri(),
      ...(current.oidc?.idToken ? { id_token_hint: current.oidc.idToken } : { client_id: this.cfg.clientID }),
    }).href;
  }

  private async revoke(config: client.Configuration, token: string, key: string) {
    if (!config.serverMetadata().revocation_endpoint) return;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(Object.assign(new Error('operation timed out'), { code: 'OAUTH_TIMEOUT' })),
        REVOKE_TIMEOUT_MS,
      ).unref(),
    );
    try {
      await Promise.race([
        client.tokenRevocation(config, token, { token_type_hint: 'refresh_token' }),
        timeout,
      ]);
      this.log.info({ session: key.slice(0, 8) }, 'OIDC refresh token revoked at sign-out');
    } catch (e) {
      this.log.warn(
        { session: key.slice(0, 8), err: describeOidcError(e).words },
        'OIDC sign-out: revoking the refresh token failed',
      );
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
