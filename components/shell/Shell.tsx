'use client';
import { FenceBar } from '../fencing/FenceBar';
import { FenceNotifier } from './FenceNotifier';
import { IncidentTitle } from './IncidentTitle';
import { BulkActionHost } from '../actions/BulkActionDialog';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { clusterProblem } from '@/lib/console/clusterProblems';
import { formatClock } from '@/lib/console/ui/format';
import { handleKey, type KeyState, SHORTCUTS } from '@/lib/console/ui/keys';
import type { ClusterMode } from '../console/api-types';
import { useCluster } from '../console/cluster';
import { useConnection, useSelectedHealth } from '../console/live';
import { GuardedActionHost } from '../actions/host';
import { useModal } from '../console/useModal';
import { UserMenu } from '../auth/UserMenu';

/** Fired on window for Escape; panels and overlays close themselves. */
export const CLOSE_EVENT = 'palisade:close';

function isEditable(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);
}

export function focusSearch(): boolean {
  const el = document.querySelector<HTMLInputElement>('[data-search]');
  if (!el) return false;
  el.focus();
  el.select();
  return true;
}

const NAV = [
  { href: '/', label: 'Map', keys: 'g m' },
  { href: '/incident', label: 'Incident', keys: 'g i' },
  { href: '/timeline', label: 'Timeline', keys: 'g t' },
  { href: '/nodes', label: 'Nodes', keys: 'g n' },
  { href: '/pods', label: 'Pods', keys: 'g p' },
  { href: '/volumes', label: 'Volumes', keys: 'g v' },
  { href: '/fencing', label: 'Fencing', keys: 'g f' },
  { href: '/protectors', label: 'Protectors', keys: 'g r' },
  { href: '/instance-ids', label: 'Instance IDs', keys: 'g d' },
  { href: '/leadership', label: 'Leadership', keys: 'g l' },
  { href: '/audit', label: 'Audit', keys: 'g a' },
];

export function Shell({ children }: { children: ReactNode }) {
  const router = useRouter();
  const [help, setHelp] = useState(false);
  const keyState = useRef<KeyState>({});
  // set once the key listener is attached: the server-rendered page shows before it, so a key
  // pressed that early does nothing (tests wait for this before pressing keys)
  const [keysOn, setKeysOn] = useState(false);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const r = handleKey(keyState.current, {
        key: e.key,
        at: performance.now(),
        ctrl: e.ctrlKey,
        meta: e.metaKey,
        alt: e.altKey,
        editable: isEditable(e.target),
      });
      keyState.current = r.state;
      if (!r.action) return;
      switch (r.action) {
        case 'focus-search':
          if (focusSearch()) e.preventDefault();
          break;
        case 'toggle-help':
          e.preventDefault();
          setHelp((h) => !h);
          break;
        case 'close':
          setHelp(false);
          if (isEditable(e.target)) (e.target as HTMLElement).blur();
          window.dispatchEvent(new Event(CLOSE_EVENT));
          break;
        case 'go-map':
          router.push('/');
          break;
        case 'go-nodes':
          router.push('/nodes');
          break;
        case 'go-pods':
          router.push('/pods');
          break;
        case 'go-protectors':
          router.push('/protectors');
          break;
        case 'go-volumes':
          router.push('/volumes');
          break;
        case 'go-fencing':
          router.push('/fencing');
          break;
        case 'go-audit':
          router.push('/audit');
          break;
        case 'go-instance-ids':
          router.push('/instance-ids');
          break;
        case 'go-leadership':
          router.push('/leadership');
          break;
        case 'go-incident':
          router.push('/incident');
          break;
        case 'go-timeline':
          router.push('/timeline');
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    setKeysOn(true);
    return () => window.removeEventListener('keydown', onKey);
  }, [router]);

  const { current } = useCluster();
  const mode: ClusterMode = useSelectedHealth()?.mode ?? current?.mode ?? 'normal';

  return (
    <div className="flex min-h-dvh flex-col" data-keys={keysOn ? 'on' : undefined}>
      <TopBar onHelp={() => setHelp(true)} mode={mode} />
      {/* the first Tab stop: past the navigation and the bars to the page (issue 25: 15 stops) */}
      <a
        href="#main"
        className="sr-only z-50 rounded bg-panel px-2 py-1 text-sm font-semibold text-info focus:not-sr-only focus:fixed focus:top-1 focus:left-1 focus:outline-2 focus:outline-info"
      >
        Skip to the page
      </a>
      <IncidentTitle />
      <FenceNotifier />
      <FenceBar />
      <ConnectionBanner />
      <ClusterProblemBanner />
      <ModeFrame mode={mode}>{children}</ModeFrame>
      {help && <HelpOverlay onClose={() => setHelp(false)} />}
      <GuardedActionHost />
      <BulkActionHost />
    </div>
  );
}

function TopBar({ onHelp, mode }: { onHelp: () => void; mode: ClusterMode }) {
  const pathname = usePathname();
  const { clusters, cluster, setCluster, current } = useCluster();
  return (
    <header className="sticky top-0 z-30 flex h-11 shrink-0 items-center gap-3 border-b border-line bg-panel px-3 text-sm">
      <Link
        href="/"
        className="flex items-center gap-2 font-semibold tracking-tight"
        aria-label="Palisade home"
      >
        <svg width="18" height="18" viewBox="0 0 16 16" aria-hidden="true" className="text-info">
          <path
            fill="currentColor"
            d="M2 3l2-2 2 2v12H2zM7 3l2-2 2 2v12H7zM12 3l2-2 2 2v12h-4z"
            opacity=".9"
          />
        </svg>
        Palisade
      </Link>
      {/* eleven pages: one line that scrolls sideways on a narrow window, never wrapping a name */}
      <nav aria-label="Main" className="flex min-w-0 items-center gap-0.5 overflow-x-auto">
        {NAV.map((n) => {
          const active = n.href === '/' ? pathname === '/' : pathname.startsWith(n.href);
          return (
            <Link
              key={n.href}
              href={n.href}
              aria-current={active ? 'page' : undefined}
              title={`${n.label} (${n.keys})`}
              className={`rounded px-1.5 py-1 whitespace-nowrap ${active ? 'bg-panel-2 text-fg' : 'text-dim hover:bg-panel-2 hover:text-fg'}`}
            >
              {n.label}
            </Link>
          );
        })}
      </nav>
      <div className="ml-auto flex items-center gap-3">
        <label className="flex items-center gap-1.5 text-dim">
          <span className="hidden 2xl:inline">Cluster</span>
          <select
            aria-label="Cluster"
            className="max-w-44 rounded border border-line bg-panel-2 px-1.5 py-0.5 text-fg"
            value={cluster ?? ''}
            onChange={(e) => setCluster(e.target.value)}
            disabled={!clusters?.length}
          >
            {!clusters?.length && <option value={cluster ?? ''}>{cluster ?? 'no clusters'}</option>}
            {clusters?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id}
                {c.embedded ? ' (embedded)' : ''}
              </option>
            ))}
          </select>
        </label>
        {current?.embedded && (
          <span
            className="hidden rounded border border-info/40 px-1.5 py-0.5 text-xs text-info md:inline"
            title="Palisade's embedded, simulated cluster"
          >
            simulation
          </span>
        )}
        <ModeBadge mode={mode} />
        <HealthIndicator />
        <UserMenu />
        <button
          type="button"
          onClick={onHelp}
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          className="h-6 w-6 rounded border border-line text-dim hover:text-fg"
        >
          ?
        </button>
      </div>
    </header>
  );
}

function ModeBadge({ mode }: { mode: ClusterMode }) {
  if (mode === 'normal') return null;
  return (
    <span
      className={`rounded px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide ${
        mode === 'protected' ? 'bg-crit text-on-fill' : 'bg-warn text-black'
      }`}
    >
      {mode}
    </span>
  );
}

function HealthIndicator() {
  const { conn } = useConnection();
  const health = useSelectedHealth();
  const informers = health?.informers ?? [];
  const unsynced = informers.filter((i) => !i.synced);
  const errors = informers.filter((i) => i.lastError);
  // the first paint is 'connecting', not a failure: muted, not a red "disconnected" (issue 25)
  const state =
    conn === 'connecting'
      ? 'muted'
      : conn !== 'connected'
        ? 'crit'
        : !health
          ? 'muted'
          : unsynced.length
            ? 'warn'
            : errors.length
              ? 'warn'
              : 'ok';
  const label =
    conn === 'connecting'
      ? 'Connecting to live updates…'
      : conn !== 'connected'
        ? 'Live updates disconnected'
        : !health
          ? 'Informer health unknown'
          : unsynced.length
            ? `${unsynced.length} informer(s) not synced`
            : errors.length
              ? 'Informers synced, with recent errors'
              : 'Informers synced';
  const detail = informers
    .map(
      (i) =>
        `${i.kind}: ${i.synced ? 'synced' : 'NOT synced'}, ${i.restarts} restarts${i.lastError ? `, ${i.lastError}` : ''}`,
    )
    .join('\n');
  const dot = { ok: 'bg-ok', warn: 'bg-warn', crit: 'bg-crit', muted: 'bg-muted' }[state];
  return (
    <span
      className="flex items-center gap-1.5 text-xs text-dim"
      title={detail ? `${label}\n${detail}` : label}
      role="status"
      aria-label={label}
    >
      <span className={`inline-block h-2.5 w-2.5 rounded-full ${dot}`} />
      {/* all well: the dot (and its name) on a narrow header; anything else always in words */}
      <span className={state === 'ok' ? 'hidden 2xl:inline' : 'inline'}>{label}</span>
    </span>
  );
}

/** The selected cluster cannot be read (credentials, RBAC, network, TLS): say so, never a blank map. */
function ClusterProblemBanner() {
  const { cluster } = useCluster();
  const problem = clusterProblem(useSelectedHealth());
  if (!problem || !cluster) return null;
  return (
    <div
      role="alert"
      aria-label="Cluster problem"
      className="border-b border-crit/50 bg-crit/12 px-3 py-1.5 text-sm"
    >
      <span className="font-semibold text-crit">Cannot read cluster {cluster}:</span>{' '}
      <span>{problem.text}</span>{' '}
      <span className="text-dim">
        ({problem.kinds.join(', ')} not synced; Palisade keeps retrying, so what is shown may be missing or
        stale)
      </span>
    </div>
  );
}

function ConnectionBanner() {
  const { conn, lostAt, error } = useConnection();
  const { listError } = useCluster();
  const [grace, setGrace] = useState(true);
  useEffect(() => {
    const t = setTimeout(() => setGrace(false), 2000);
    return () => clearTimeout(t);
  }, []);
  const socketDown = conn === 'disconnected' || (conn === 'connecting' && !grace);
  if (!socketDown && !listError) {
    if (!error) return null;
    return (
      <div role="alert" className="border-b border-warn/50 bg-warn/12 px-3 py-1.5 text-sm">
        <span className="font-semibold text-warn">Live updates unavailable:</span>{' '}
        <span className="text-dim">{error}</span>
      </div>
    );
  }
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center gap-x-3 border-b border-crit/50 bg-crit/12 px-3 py-1.5 text-sm"
    >
      <span className="font-semibold text-crit">Disconnected from the Palisade server</span>
      <span className="text-dim">
        {socketDown
          ? lostAt
            ? `Live updates stopped at ${formatClock(lostAt)}; what you see may be stale. Reconnecting…`
            : 'Connecting to live updates…'
          : null}
        {listError ? ` Cluster list unavailable: ${listError}` : null}
      </span>
    </div>
  );
}

function ModeFrame({ mode, children }: { mode: ClusterMode; children: ReactNode }) {
  if (mode === 'normal')
    return (
      <main id="main" tabIndex={-1} className="flex min-h-0 flex-1 flex-col outline-none">
        {children}
      </main>
    );
  const protectedMode = mode === 'protected';
  return (
    <main
      id="main"
      tabIndex={-1}
      className={`relative flex outline-none min-h-0 flex-1 flex-col border-4 ${protectedMode ? 'border-crit' : 'border-warn'}`}
      aria-label={protectedMode ? 'Cluster in protected mode' : 'Cluster in read-only mode'}
    >
      <div
        className={`px-3 py-1 text-xs font-semibold uppercase tracking-wide ${
          protectedMode ? 'bg-crit text-on-fill' : 'bg-warn text-black'
        }`}
      >
        {protectedMode
          ? 'Protected cluster — every change here is guarded and needs explicit confirmation'
          : 'Read-only mode — Palisade will not change this cluster'}
      </div>
      {children}
    </main>
  );
}

function HelpOverlay({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const close = useCallback(() => onClose(), [onClose]);
  useModal(ref, close);
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center p-4">
      <button
        type="button"
        aria-label="Close help"
        tabIndex={-1}
        className="absolute inset-0 cursor-default bg-black/40"
        onClick={close}
      />
      <div
        ref={ref}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-labelledby="help-title"
        className="relative w-full max-w-sm rounded-md border border-line bg-panel p-4 shadow-xl outline-none"
      >
        <div className="mb-3 flex items-center justify-between">
          <h2 id="help-title" className="font-semibold">
            Keyboard shortcuts
          </h2>
          <button type="button" onClick={close} aria-label="Close help" className="text-dim hover:text-fg">
            ✕
          </button>
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
          {SHORTCUTS.map((s) => (
            <div key={s.keys} className="contents">
              <dt>
                {s.keys.split(' ').map((k) => (
                  <kbd
                    key={k}
                    className="mr-1 rounded border border-line bg-panel-2 px-1.5 font-mono text-xs"
                  >
                    {k}
                  </kbd>
                ))}
              </dt>
              <dd className="text-dim">{s.description}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-3 text-xs text-dim">Shortcuts are ignored while you type in a field.</p>
      </div>
    </div>
  );
}
