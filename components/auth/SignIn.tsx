'use client';
// The sign-in page: a Kubernetes token (any the cluster accepts: a ServiceAccount's from
// `kubectl create token`, a demo user's from tokens.csv), or the identity provider when one is
// configured. It sits outside the console's shell: nothing here needs, or shows, cluster data.
import { type FormEvent, useEffect, useState } from 'react';
import { safeNext } from '@/lib/auth/redirect';
import { endedWords } from '@/lib/auth/session';
import { fetchSession, type SessionInfo } from './session';

const ENDED = new Set(['idle', 'absolute', 'signed-out', 'refresh-failed', 'gone']);

export function SignIn() {
  const [info, setInfo] = useState<SessionInfo | undefined>(undefined);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [params, setParams] = useState<URLSearchParams | undefined>(undefined);

  useEffect(() => {
    const p = new URLSearchParams(window.location.search);
    setParams(p);
    if (p.get('error') === 'link')
      setError(
        'That sign-in link was already used or is out of date: npm start printed a new one in its terminal.',
      );
    if (p.get('error') === 'link-expired')
      setError(
        'That sign-in link had expired (links work for 15 minutes): npm start printed a new one in its terminal.',
      );
    if (p.get('error') === 'cookie')
      setError(
        'This browser sent two Palisade session cookies: another site on this host set one. Both were cleared: sign in again.',
      );
    if (p.get('error') === 'oidc')
      setError(`The identity provider did not sign you in: ${p.get('detail') ?? 'unknown error'}`);
    // a cookie is SameSite=Strict: a link from another site arrives without it, so ask again
    // from this page (same-site) before asking anyone to sign in
    fetchSession()
      .then((s) => {
        if (s.signedIn) window.location.replace(safeNext(p.get('next')));
        else setInfo(s);
      })
      .catch((e) => setError((e as Error).message));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await fetch('/auth/token', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: token.trim() }),
      });
      const body = (await r.json().catch(() => ({}))) as { error?: string };
      if (!r.ok) throw new Error(body.error ?? `sign-in failed (${r.status})`);
      window.location.replace(safeNext(params?.get('next') ?? null));
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  const ended = params?.get('ended');
  const ways = info && !info.signedIn ? info.ways : undefined;
  return (
    <main className="mx-auto mt-16 max-w-md px-4 text-sm">
      <h1 className="mb-1 flex items-center gap-2 text-lg font-semibold">
        <svg width="18" height="18" viewBox="0 0 16 16" aria-hidden="true" className="text-info">
          <path fill="currentColor" d="M2 3l2-2 2 2v12H2zM7 3l2-2 2 2v12H7zM12 3l2-2 2 2v12h-4z" />
        </svg>
        Sign in to Palisade
      </h1>
      <p className="mb-4 text-dim">
        Palisade acts as you on each cluster, so the cluster's own RBAC decides what you may see and do.
      </p>
      {ended && ENDED.has(ended) && (
        <p role="status" className="mb-3 rounded border border-line bg-panel-2 px-3 py-2">
          {endedWords(ended as Parameters<typeof endedWords>[0])}
        </p>
      )}
      {error && (
        <p role="alert" className="mb-3 rounded border border-crit/60 bg-crit/10 px-3 py-2 text-crit">
          {error}
        </p>
      )}
      {ways?.oidc && (
        <div className="mb-5">
          <a
            href={`${ways.oidc.start}?next=${encodeURIComponent(safeNext(params?.get('next') ?? null))}`}
            className="block rounded border border-info bg-info px-3 py-2 text-center font-semibold text-on-fill"
          >
            Sign in with your identity provider
          </a>
          <p className="mt-1 text-xs text-dim">{ways.oidc.issuer}</p>
        </div>
      )}
      <form
        onSubmit={submit}
        className="rounded border border-line bg-panel p-3"
        aria-label="Sign in with a token"
      >
        <label htmlFor="token" className="mb-1 block font-semibold">
          Kubernetes token
        </label>
        <textarea
          id="token"
          name="token"
          required
          rows={3}
          autoComplete="off"
          spellCheck={false}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          className="w-full rounded border border-line bg-panel-2 p-2 font-mono text-xs"
          aria-describedby="token-help"
        />
        <p id="token-help" className="mt-1 text-xs text-dim">
          Any bearer token the cluster accepts, e.g. <code>kubectl create token NAME -n NAMESPACE</code>.
          {ways?.demoTokens && (
            <>
              {' '}
              On this embedded demo cluster, the users viewer, operator and admin have theirs in{' '}
              <code data-testid="demo-tokens">{ways.demoTokens}</code>.
            </>
          )}{' '}
          It stays on the server and is never shown again.
        </p>
        <button
          type="submit"
          disabled={busy || !token.trim()}
          className="mt-3 rounded border border-info px-3 py-1 font-semibold text-info disabled:opacity-50"
        >
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {ways?.link && (
        <p className="mt-4 text-xs text-dim">
          Started Palisade yourself? <code>npm start</code> printed a one-time sign-in link in its terminal.
        </p>
      )}
      {info && (
        <p className="mt-8 break-all text-xs text-dim" data-testid="replica">
          served by Palisade replica {info.replica}
        </p>
      )}
    </main>
  );
}
