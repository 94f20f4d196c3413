'use client';
// The browser's view of its session: GET /auth/session (the cookie is HttpOnly, so the page
// asks the server who it is), sign-out, and where to go when the server says the session has
// ended (a 401 from tRPC, or `session:ended` on the socket).
import { useQuery } from '@tanstack/react-query';

export interface SessionCluster {
  cluster: string;
  user: string;
  groups: string[];
}

export type SessionInfo =
  | {
      signedIn: true;
      method: 'token' | 'oidc' | 'link' | 'bearer';
      clusters: SessionCluster[];
      expiresAt: string;
      createdAt: string;
      /** the Palisade replica that answered */
      replica: string;
    }
  | {
      signedIn: false;
      /** the Palisade replica that answered */
      replica: string;
      ways: {
        token: boolean;
        oidc: { issuer: string; start: string } | null;
        link: boolean;
        /** the embedded cluster's demo users' tokens file; null on a real cluster */
        demoTokens?: string | null;
      };
    };

export async function fetchSession(): Promise<SessionInfo> {
  const r = await fetch('/auth/session', { credentials: 'same-origin', cache: 'no-store' });
  if (!r.ok) throw new Error(`the console answered ${r.status} to /auth/session`);
  return (await r.json()) as SessionInfo;
}

export function useSession() {
  return useQuery({ queryKey: ['auth', 'session'], queryFn: fetchSession, staleTime: 60_000 });
}

/** The sign-in page, coming back here afterwards; `ended` says why the session ended. */
export function signInUrl(ended?: string): string {
  const here = `${window.location.pathname}${window.location.search}`;
  const q = new URLSearchParams({ next: here });
  if (ended) q.set('ended', ended);
  return `/signin?${q}`;
}

// Set while signing out: the socket's `session:ended` and the 401s that follow the sign-out
// would otherwise race the sign-out's own navigation to the sign-in page.
let leaving = false;

export function goToSignIn(ended?: string) {
  if (leaving || window.location.pathname === '/signin') return;
  leaving = true;
  window.location.assign(signInUrl(ended));
}

export async function signOut(everywhere: boolean) {
  const next = signInUrl('signed-out');
  leaving = true;
  let logout: string | undefined;
  try {
    const r = await fetch('/auth/signout', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ everywhere }),
    });
    logout = ((await r.json().catch(() => ({}))) as { logout?: string }).logout;
  } catch (e) {
    leaving = false; // not signed out: the page stays
    throw e;
  }
  // signed in through an identity provider: its own session ends there too (it then sends the
  // browser back here), so the next sign-in asks for the password again
  window.location.assign(logout && /^https?:\/\//.test(logout) ? logout : next);
}
