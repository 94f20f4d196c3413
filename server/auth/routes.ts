// The sign-in routes under /auth (the gate has already checked Host and Origin):
//   GET  /auth/session   who is signed in (or how to sign in)
//   POST /auth/token     sign in with a Kubernetes token {token}
//   GET  /auth/link      the one-time link printed by `npm start` on loopback
//   POST /auth/signout   end this session, or {everywhere: true} every session of the person
// OIDC adds /auth/oidc/* (oidc.ts).
import type http from 'node:http';
import { z } from 'zod';
import type { ClusterId } from '../../lib/console/protocol.js';
import {
  BodyError,
  clearedCookie,
  clientAddress,
  readJson,
  redirect,
  sendJson,
  sessionCookie,
} from './http.js';
import type { Identity, Principal } from './identity.js';
import type { Admitted, ConsoleAuth } from './service.js';
import type { Session } from './sessions.js';
import { REPLICA_IDENTITY } from '../replica.js';
import { whoAmI } from './whoami.js';

export interface SignInOptions {
  /** shown on the sign-in page when an identity provider is configured */
  oidc?: { issuer: string; start: string };
  extra?: (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    a: Admitted,
    path: string,
  ) => Promise<boolean>;
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
    if (url.pathname === '/auth/signout' && method === 'POST') return await signOut(auth, req, res, a);
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
    ways: { token: true, oidc: opts.oidc ?? null, link: auth.link !== undefined },
  });
}

async function limited(auth: ConsoleAuth, req: http.IncomingMessage, res: http.ServerResponse) {
  const admit = await auth.limits.signInFrom(clientAddress(req));
  if (admit.ok) return false;
  sendJson(
    res,
    429,
    { error: `too many sign-in attempts: try again in ${admit.retryAfterSeconds} s` },
    { 'retry-after': String(admit.retryAfterSeconds) },
  );
  return true;
}

async function startSession(
  auth: ConsoleAuth,
  res: http.ServerResponse,
  identity: Omit<Identity, 'sessionKey'>,
) {
  const { session, id } = await auth.sessions.create(identity);
  res.setHeader('set-cookie', sessionCookie(auth.cookie, id));
  return session;
}

async function tokenSignIn(auth: ConsoleAuth, req: http.IncomingMessage, res: http.ServerResponse) {
  if (await limited(auth, req, res)) return;
  const parsed = tokenBody.safeParse(await readJson(req));
  if (!parsed.success) return sendJson(res, 400, { error: parsed.error.issues[0].message });
  const check = await auth.tokens.check(parsed.data.token, 'token');
  if (!check.ok) return sendJson(res, 401, { error: check.message });
  const s = await startSession(auth, res, { ...check.identity, method: 'token' });
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
  if (await limited(auth, req, res)) return;
  if (!auth.link?.consume(url.searchParams.get('token'))) return redirect(res, '/signin?error=link');
  await startSession(auth, res, {
    method: 'link',
    credential: { kind: 'console' },
    principals: await consolePrincipals(auth),
  });
  redirect(res, '/');
}

async function signOut(auth: ConsoleAuth, req: http.IncomingMessage, res: http.ServerResponse, a: Admitted) {
  const parsed = signOutBody.safeParse(await readJson(req).catch(() => ({})));
  const everywhere = parsed.success && parsed.data?.everywhere === true;
  if (a.session) {
    auth.access.forget(a.session.credential);
    try {
      if (everywhere) await auth.sessions.endAllLike(a.session, 'signed-out');
      else await auth.sessions.end(a.session.sessionKey, 'signed-out');
    } catch (e) {
      // still valid on the other replicas: say so, and keep the cookie so the person can try again
      return sendJson(res, 503, {
        error: `not signed out: the session store did not answer (${(e as Error).message})`,
      });
    }
  }
  res.setHeader('set-cookie', clearedCookie(auth.cookie));
  sendJson(res, 200, { signedIn: false, everywhere });
}
