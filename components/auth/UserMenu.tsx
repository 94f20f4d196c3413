'use client';
// Who is signed in, in the top bar: the name the selected cluster knows them by (from its
// SelfSubjectReview), their groups, how they signed in, and sign-out (this browser, or every
// session of theirs).
import { useEffect, useRef, useState } from 'react';
import { useCluster } from '../console/cluster';
import { NotifyToggle } from '../shell/NotifyToggle';
import { signOut, useSession } from './session';

const METHOD: Record<string, string> = {
  token: 'signed in with a Kubernetes token',
  oidc: 'signed in through the identity provider (Palisade impersonates you)',
  link: "signed in with the one-time link: acting with the console's own kubeconfig",
  bearer: 'a bearer token',
};

export function UserMenu() {
  const session = useSession();
  const { cluster } = useCluster();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', esc);
    };
  }, [open]);
  const s = session.data;
  if (!s?.signedIn) return null;
  const here = s.clusters.find((c) => c.cluster === cluster) ?? s.clusters[0];
  const groups = (here?.groups ?? []).filter((g) => g !== 'system:authenticated');
  return (
    <div ref={box} className="relative">
      <button
        type="button"
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu"
        className="flex max-w-48 items-center gap-1 rounded border border-line px-1.5 py-0.5 text-fg hover:border-info"
        title={`${here?.user ?? ''}${groups.length ? ` (groups: ${groups.join(', ')})` : ''}`}
      >
        <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="8" cy="5" r="3" fill="currentColor" />
          <path d="M2 15c0-3.3 2.7-5 6-5s6 1.7 6 5z" fill="currentColor" />
        </svg>
        <span className="truncate" data-testid="signed-in-user">
          {here?.user ?? 'not signed in to this cluster'}
        </span>
      </button>
      {/* which replica served this page, at a glance (the full name is in the menu) */}
      <span
        className="pointer-events-none absolute -bottom-3 right-0 hidden whitespace-nowrap text-[10px] leading-none text-dim lg:block"
        data-testid="replica-badge"
        title={`served by Palisade replica ${s.replica}`}
      >
        {shortReplica(s.replica)}
      </span>
      {open && (
        <div className="absolute right-0 top-8 z-40 w-72 rounded border border-line bg-panel p-3 text-xs shadow-lg">
          <p className="font-semibold">{here?.user}</p>
          <p className="mb-1 text-dim">{METHOD[s.method] ?? s.method}</p>
          {groups.length > 0 && <p className="mb-1 break-words text-dim">groups: {groups.join(', ')}</p>}
          {s.clusters.length > 1 && (
            <ul className="mb-1 text-dim">
              {s.clusters.map((c) => (
                <li key={c.cluster}>
                  {c.cluster}: {c.user}
                </li>
              ))}
            </ul>
          )}
          <p className="mb-1 text-dim">session ends {new Date(s.expiresAt).toLocaleString()} unless used</p>
          <p className="mb-2 break-all text-dim" data-testid="replica">
            served by Palisade replica {s.replica}
          </p>
          <NotifyToggle className="mb-2" />
          <div className="flex gap-2">
            <button
              type="button"
              onClick={() => void signOut(false)}
              className="rounded border border-line bg-panel-2 px-2 py-1 hover:border-info"
            >
              Sign out
            </button>
            <button
              type="button"
              onClick={() => void signOut(true)}
              className="rounded border border-line bg-panel-2 px-2 py-1 hover:border-info"
              title="End every session of yours, in every browser"
            >
              Sign out everywhere
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** host_pid_random -> pid·random: what tells replicas on one host apart */
function shortReplica(id: string): string {
  const parts = id.split('_');
  return parts.length >= 3 ? `replica ${parts.at(-2)}·${parts.at(-1)}` : `replica ${id}`;
}
