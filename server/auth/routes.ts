// The sign-in routes under /auth (the gate has already checked Host and Origin):
//   GET  /auth/session   who is signed in (or how to sign in)
//   POST /auth/token     sign in with a Kubernetes token {token}
//   GET  /auth/link      the one-time link printed by `npm start` on loopback
//   POST /auth/signout   end this session, or {everywhere: true} every session of the person
// OIDC adds /auth/oidc/* (oidc.ts).
import type http from 'node:http';
import { z } from 'zod';
import type { ClusterId } from '../../lib/console/protocol.js';
import { BodyError, clearedCookie, readJson, redirect, sendJson, sessionCookie } from './http.js';
import type { Identity, Principal } from './identity.js';
import type { Admitted, ConsoleAuth } from './service.js';
import type { Session } from './sessions.js';
import { REPLICA_IDENTITY } from '../replica.js';
import { whoAmI } from './whoami.js';

export interface SignInOptions {
  /** the embedded cluster's demo users' tokens file, relative to where Palisade started */
  demoTokens?: string;
  /** shown on the sign-in page when an identity provider is configured */
  oidc?: { issuer: string; start: string };
  extra?: (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    a: Admitted,
    path: string,
  ) => Promise<boolean>;
  /**
   * An OIDC session signs out: revoke the refresh tokens of `all` (this session, or every one of
   * the person's) and say where the browser ends the provider's session (RP-initiated logout)
   */
  endSession?: (current: Session, all: Session[]) => Promise<string | undefined>;
}

const tokenBody = z.object({
  token: z.string({ error: 'token: required' }).min(1, 'token: required').max(16_384, 'token: too long'),
});
const signOutBody = z.object({ everywhere: z.boolean().optional() }).optional();

/** What the browser may know of a session: never a token. */
export function sessionView(auth: ConsoleAuth, s: Session) {
  return {
    signedIn: true as const,
    method: s.method,
    clusters: [...s.principals].map(([cluster, p]) => ({ cluster, user: p.username, groups: p.groups })),
    expiresAt: new Date(auth.sessions.expiresAt(s)).toISOString(),
    createdAt: new Date(s.createdAt).toISOString(),
    replica: REPLICA_IDENTITY,
  };
}

export async function authRoute(
  auth: ConsoleAuth,
  opts: SignInOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  a: Admitted,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://auth');
  const method = req.method ?? 'GET';
  try {
    if (url.pathname === '/auth/session' && method === 'GET') return session(auth, opts, res, a);
    if (url.pathname === '/auth/token' && method === 'POST') return await tokenSignIn(auth, req, res);
    if (url.pathname === '/auth/link' && method === 'GET') return await linkSignIn(auth, req, res, url);
    if (url.pathname === '/auth/signout' && method === 'POST') return await signOut(auth, opts, req, res, a);
    if (opts.extra && (await opts.extra(req, res, a, url.pathname))) return;
    sendJson(res, 404, { error: `no such sign-in route: ${method} ${url.pathname}` });
  } catch (e) {
    if (e instanceof BodyError) return sendJson(res, e.status, { error: e.message });
    throw e;
  }
}

function session(auth: ConsoleAuth, opts: SignInOptions, res: http.ServerResponse, a: Admitted) {
  if (a.session) return sendJson(res, 200, sessionView(auth, a.session));
  sendJson(res, 200, {
    signedIn: false,
    replica: REPLICA_IDENTITY,
    ways: {
      token: true,
      oidc: opts.oidc ?? null,
      link: auth.link !== undefined,
      demoTokens: opts.demoTokens ?? null,
    },
  });
}

/** Answer 429 when this client has made too many sign-in attempts, or is over its failures. */
export async function signInLimited(
  auth: ConsoleAuth,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  method: 'token' | 'link' | 'oidc',
): Promise<boolean> {
  const client = auth.clientOf(req);
  let admit = await auth.limits.signInFrom(client);
  if (admit.ok) admit = await auth.limits.mayTry(client);
  if (admit.ok) return false;
  const r = auth.limited(admit, method, client);
  sendJson(res, 429, { error: r.refusal, code: r.code }, { 'retry-after': String(r.retryAfterSeconds) });
  return true;
}

async function startSession(
  auth: ConsoleAuth,
  res: http.ServerResponse,
  identity: Omit<Identity, 'sessionKey'>,
) {
  const { session, id } = await auth.sessions.create(identity);
  res.setHeader('set-cookie', sessionCookie(auth.cookie, auth.cookieValueFor(id)));
  return session;
}

async function tokenSignIn(auth: ConsoleAuth, req: http.IncomingMessage, res: http.ServerResponse) {
  if (await signInLimited(auth, req, res, 'token')) return;
  const parsed = tokenBody.safeParse(await readJson(req));
  if (!parsed.success) return sendJson(res, 400, { error: parsed.error.issues[0].message });
  const r = await auth.authenticateToken(auth.clientOf(req), parsed.data.token, 'token');
  if ('refusal' in r)
    return sendJson(
      res,
      r.status,
      { error: r.refusal, code: r.code },
      r.retryAfterSeconds ? { 'retry-after': String(r.retryAfterSeconds) } : {},
    );
  const s = await startSession(auth, res, { ...r.identity, method: 'token' });
  sendJson(res, 200, sessionView(auth, s));
}

/** Who the console's own kubeconfig user is on each cluster, for a session from the link. */
async function consolePrincipals(auth: ConsoleAuth): Promise<Map<ClusterId, Principal>> {
  const out = new Map<ClusterId, Principal>();
  await Promise.all(
    [...auth.clusters.values()].map(async (c) => {
      const who = await whoAmI(c, { kind: 'console' });
      out.set(
        c.id,
        who.ok ? who.principal : { username: `the kubeconfig user of context ${c.spec.context}`, groups: [] },
      );
    }),
  );
  return out;
}

async function linkSignIn(auth: ConsoleAuth, req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
  if (await signInLimited(auth, req, res, 'link')) return;
  const use = auth.link ? auth.link.consume(url.searchParams.get('token')) : 'wrong';
  if (use !== 'ok') {
    const client = auth.clientOf(req);
    await auth.limits.failed(client);
    auth.failedAttempt(
      'link',
      client,
      use === 'expired' ? 'the one-time link had expired' : 'not the current one-time link',
    );
    return redirect(res, `/signin?error=${use === 'expired' ? 'link-expired' : 'link'}`);
  }
  auth.metrics.attempts.inc({ method: 'link', outcome: 'ok' });
  await startSession(auth, res, {
    method: 'link',
    credential: { kind: 'console' },
    principals: await consolePrincipals(auth),
  });
  redirect(res, '/');
}

async function signOut(
  auth: ConsoleAuth,
  opts: SignInOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  a: Admitted,
) {
  const parsed = signOutBody.safeParse(await readJson(req).catch(() => ({})));
  const everywhere = parsed.success && parsed.data?.everywhere === true;
  let logout: string | undefined;
  if (a.session) {
    const me = a.session;
    auth.access.forget(me.credential);
    // with an identity provider: its refresh tokens revoked, and where its own session ends
    if (me.method === 'oidc' && opts.endSession) {
      const names = new Set([...me.principals.values()].map((p) => p.username));
      const mine = everywhere
        ? auth.sessions.all().filter((s) => [...s.principals.values()].some((p) => names.has(p.username)))
        : [me];
      logout = await opts.endSession(me, mine.includes(me) ? mine : [me, ...mine]);
    }
    try {
      if (everywhere) await auth.sessions.endAllLike(me, 'signed-out');
      else await auth.sessions.end(me.sessionKey, 'signed-out');
    } catch (e) {
      // still valid on the other replicas: say so, and keep the cookie so the person can try again
      return sendJson(res, 503, {
        error: `not signed out: the session store did not answer (${(e as Error).message})`,
      });
    }
  }
  res.setHeader('set-cookie', clearedCookie(auth.cookie));
  sendJson(res, 200, { signedIn: false, everywhere, ...(logout ? { logout } : {}) });
}
