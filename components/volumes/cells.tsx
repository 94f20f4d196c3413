'use client';
// The volumes table's cells. The ages and countdowns tick on the shared one-second clock, each
// cell on its own, so a tick re-renders only them.
import { formatAge } from '@/lib/console/ui/format';
import type { ForceDetach } from '@/lib/volumes/rwoTypes';
import { useNow } from '../console/clock';
import type { Attachment, VolumeRow, Waiter } from './api';
import { NodeBadge } from './badges';

export type DetachHandler = (pv: string, attachmentName: string) => void;

const WAIT_LABEL: Record<Waiter['reason'], string> = {
  'multi-attach': 'Multi-Attach',
  'attach-error': 'attach error',
  attaching: 'attaching',
};

const dash = <span className="text-dim">—</span>;

/** "1m05s" since `since`, ticking; a dash when unknown. */
export function LiveAge({ since }: { since: number | undefined }) {
  const now = useNow(1000) || Date.now();
  return <span className="font-mono tabular-nums">{since ? formatAge(now - since) : '—'}</span>;
}

export function AttachedCell({ row }: { row: VolumeRow }) {
  if (!row.attachments.length) return dash;
  return (
    <div className="flex flex-col gap-0.5">
      {row.attachments.map((a) => (
        <span
          key={a.name}
          className="flex flex-wrap items-center gap-1"
          title={a.stuck ?? a.attachError ?? a.detachError}
        >
          <NodeBadge node={a.node} health={a.nodeHealth} />
          {!a.attached && !a.detaching && <span className="text-xs text-dim">attaching</span>}
          {a.detaching && <span className="text-xs text-warn">detaching</span>}
          {(a.attachError || a.detachError) && <span className="text-xs text-crit">error</span>}
        </span>
      ))}
    </div>
  );
}

export function UsersCell({ row }: { row: VolumeRow }) {
  if (!row.users.length) return dash;
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      {row.users.map((u) => (
        <span key={u.uid} className="whitespace-nowrap">
          <span className="font-mono">{u.name}</span>
          {u.node && <span className="text-dim"> on {u.node}</span>}
          {u.terminating && <span className="text-warn"> Terminating</span>}
        </span>
      ))}
    </div>
  );
}

export function WaitersCell({ row }: { row: VolumeRow }) {
  return (
    <div data-testid="volume-waiters" className="flex flex-col gap-0.5 text-xs">
      {row.waiters.length === 0
        ? dash
        : row.waiters.map((w) => (
            <span key={w.uid} className="whitespace-nowrap" title={w.message}>
              <span className="font-mono">{w.name}</span>
              {w.node && <span className="text-dim"> on {w.node}</span>}
              {w.terminating && <span className="text-dim"> (Terminating)</span>}{' '}
              <span className={w.reason === 'attaching' ? 'text-dim' : 'font-semibold text-warn'}>
                {WAIT_LABEL[w.reason]}
              </span>{' '}
              <span data-testid="volume-wait-age">
                <LiveAge since={w.since} />
              </span>
            </span>
          ))}
    </div>
  );
}

/** The attachment whose force detach matters most: a running countdown before anything else. */
const FD_ORDER: Record<ForceDetach['state'], number> = {
  due: 0,
  counting: 1,
  'unknown-start': 2,
  blocked: 3,
  immediate: 4,
  disabled: 5,
  'not-applicable': 6,
};

export function primaryAttachment(row: VolumeRow): Attachment | undefined {
  return [...row.attachments].sort(
    (a, b) => FD_ORDER[a.forceDetach.state] - FD_ORDER[b.forceDetach.state],
  )[0];
}

export function ForceDetachText({ fd }: { fd: ForceDetach }) {
  const now = useNow(1000) || Date.now();
  switch (fd.state) {
    case 'counting':
      return <span className="font-mono text-warn tabular-nums">in {formatAge(fd.deadline - now)}</span>;
    case 'due':
      return <span className="font-semibold text-crit">due {formatAge(now - fd.deadline)} ago</span>;
    case 'unknown-start':
      return <span className="text-warn">≤ {formatAge(fd.maxWaitMs)} (start unseen)</span>;
    case 'blocked':
      return <span className="text-dim">not started: pod in API</span>;
    case 'immediate':
      return <span className="text-oos">now (out-of-service)</span>;
    case 'disabled':
      return <span className="text-dim">disabled</span>;
    default:
      return dash;
  }
}

export function ForceDetachCell({ row }: { row: VolumeRow }) {
  const a = primaryAttachment(row);
  if (!a) return dash;
  return (
    <span data-testid="volume-force-detach" title={a.forceDetach.text} className="text-xs">
      <ForceDetachText fd={a.forceDetach} />
    </span>
  );
}

export function WritersCell({ row }: { row: VolumeRow }) {
  const writers = row.writers ?? [];
  if (!writers.length) return <span className="text-xs text-dim">none</span>;
  const nodes = new Set(writers.filter((w) => w.canWrite).map((w) => w.node));
  return (
    <div data-testid="volume-writers" className="flex flex-col gap-0.5 text-xs">
      {writers.map((w) => (
        <span
          key={`${w.node}/${w.podUid}`}
          className={`whitespace-nowrap font-mono ${w.canWrite && (nodes.size > 1 || w.api === 'gone') ? 'font-semibold text-crit' : ''}`}
          title={`${w.pod} (${w.api === 'gone' ? 'its pod is gone from the API' : w.api === 'elsewhere' ? 'the API has its pod elsewhere' : 'its pod is here in the API'})`}
        >
          {w.node}
          {!w.canWrite && <span className="font-sans text-dim"> (storage-fenced)</span>}
          {w.api === 'gone' && w.canWrite && <span className="font-sans"> ghost</span>}
        </span>
      ))}
    </div>
  );
}

const COMING = 'guarded detach: coming with the actions dialog';

/** Detach for one attachment: the guarded dialog (onDetach) decides; the hint says what the view sees. */
export function DetachButton({
  pv,
  a,
  onDetach,
}: {
  pv: string;
  a: Attachment | undefined;
  onDetach?: DetachHandler;
}) {
  if (!a) return null;
  const hint = a.detachHint;
  // a healthy node's own pods keep it: "in use", not an alarm
  const inUse =
    !hint.safe && a.usersOnNode.length > 0 && (a.nodeHealth === 'ready' || a.nodeHealth === 'cordoned');
  const label = hint.safe ? 'safe' : inUse ? 'in use' : 'unsafe';
  return (
    <span className="flex items-center gap-1.5">
      <button
        type="button"
        disabled={!onDetach || a.detaching}
        title={onDetach ? `Detach ${pv} from ${a.node}: ${hint.why}` : COMING}
        onClick={() => onDetach?.(pv, a.name)}
        className="rounded border border-line px-1.5 py-0.5 text-xs hover:bg-panel-2 disabled:cursor-not-allowed disabled:opacity-50"
      >
        Detach
      </button>
      <span
        title={hint.why}
        data-testid="volume-detach-hint"
        className={`text-[11px] font-semibold uppercase ${hint.safe ? 'text-ok' : inUse ? 'text-dim' : 'text-crit'}`}
      >
        {label}
      </span>
    </span>
  );
}
