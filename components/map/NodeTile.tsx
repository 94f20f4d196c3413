'use client';
import { memo, useEffect, useMemo, useReducer } from 'react';
import type { NodeView, PodState, PodView } from '@/lib/console/protocol';
import { formatAge, formatClock } from '@/lib/console/ui/format';
import { type PodProtectorIndex, protectedCount, protectorsOf } from '@/lib/console/ui/protection';
import type { Phase } from '@/lib/fencing/types';
import { PHASE_TONE, releasedText, type Tone } from '@/lib/fencing/view';
import type { FenceBadge } from '../fencing/live';
import { useWarningText } from '../fencing/Warning';
import {
  DEFAULT_SUSPECT_AFTER_MS,
  NODE_DOT_CLASS,
  NODE_SHAPE,
  NODE_STATE_LABEL,
  NODE_TILE_CLASS,
  nodeDisplayState,
  SHAPE_CLASS,
  showsHeartbeatAge,
  tileStateText,
} from '@/lib/console/ui/states';
import { CancelFenceButton } from '../actions/GuardedActionButtons';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { NodeStateMark } from './NodeStateMark';
import { PodMarks } from './PodMarks';

export const TILE_MARKS_WIDTH = 96;

/** Re-render a Ready node once when its heartbeat becomes old enough to call it suspect. */
function useSuspectTimer(node: NodeView): void {
  const [, bump] = useReducer((x: number) => x + 1, 0);
  useEffect(() => {
    if (node.ready !== 'Ready' || node.lastHeartbeat === undefined) return;
    const due = node.lastHeartbeat + DEFAULT_SUSPECT_AFTER_MS - Date.now();
    if (due <= 0) return;
    const t = setTimeout(bump, due + 50);
    return () => clearTimeout(t);
  }, [node.ready, node.lastHeartbeat]);
}

export function HeartbeatAge({ since, className }: { since: number | undefined; className?: string }) {
  const now = useNow(1000);
  if (since === undefined) return <span className={className}>no heartbeat</span>;
  if (now === 0) return <span className={className}>—</span>;
  return (
    <span className={className} title="time since the last heartbeat (Lease renewal or NodeStatus)">
      {formatAge(now - since)}
    </span>
  );
}

function ghostText(g: NodeTileProps['ghosts']): string {
  if (!g) return '';
  const what = g.critical ? `${g.critical} ghost${g.critical === 1 ? '' : 's'}` : 'unseen';
  return `; ${g.total} process${g.total === 1 ? '' : 'es'} out of the API's sight (${what}, simulation)`;
}

function guardText(guarded: number, protectors: string[]): string {
  if (!guarded) return '';
  return `; ${guarded} protected pod${guarded === 1 ? '' : 's'} (${protectors.join(', ')})`;
}

/** A small shield: the node runs pods a PodProtector guards. */
export function ShieldIcon({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 12 14" width="9" height="10" aria-hidden="true" className={className}>
      <path d="M6 0.5 11.5 2.5V7c0 3.2-2.4 5.5-5.5 6.5C2.9 12.5.5 10.2.5 7V2.5Z" fill="currentColor" />
    </svg>
  );
}

function podCounts(pods: readonly PodView[]): string {
  const c = new Map<PodState, number>();
  for (const p of pods) c.set(p.state, (c.get(p.state) ?? 0) + 1);
  return [...c].map(([s, n]) => `${n} ${s}`).join(', ');
}

export interface NodeTileProps {
  node: NodeView;
  pods: readonly PodView[];
  selected: boolean;
  dimmed: boolean;
  onSelect: (name: string) => void;
  /** embedded cluster: processes on this node the API cannot see (ground truth) */
  ghosts?: { total: number; critical: number };
  /** a small square without name or marks, for thousands of nodes on one screen */
  compact?: boolean;
  /** pods some PodProtector guards ("ns/name" -> protector keys) */
  guarded?: PodProtectorIndex;
  /** the node's NodeFence (its phase), or the fence a policy will start on it */
  fence?: FenceBadge;
}

/**
 * Fences an incident commander must see on the map: coming (no NodeFence yet), in progress,
 * failed, holding the node released, held by the budget, or cancelled by a person while the
 * node is still down (it holds the node until someone fences it by hand).
 */
const showsFence = (f: FenceBadge | undefined, ready: boolean): f is FenceBadge =>
  !!f &&
  (!!f.held ||
    (f.phase !== 'Recovered' && f.phase !== 'Cancelled') ||
    (f.phase === 'Cancelled' && !!f.cancelledBy && !ready));

/**
 * The fence in words, for the tile's name: the phase, when it will run (a clock time, not the
 * countdown: a name that changed every second would be read out every second), and what
 * Released asks of a person.
 */
function fenceWords(f: FenceBadge, node: string): string {
  if (f.held) return `fence held: ${f.held}`;
  if (f.phase === 'Cancelled')
    return `fence cancelled by ${f.cancelledBy}: the node is held until someone fences it`;
  const at = f.fenceAt ? formatClock(Date.parse(f.fenceAt)) : undefined;
  const when = f.paused
    ? `held: policy ${f.policy} is paused`
    : at
      ? `fenced automatically at ${at} unless cancelled`
      : '';
  if (!f.phase) return `fence coming (policy ${f.policy})${when ? `, ${when}` : ''}`;
  if (f.phase === 'Released') return `fence: ${releasedText(node, f.agentType)}`;
  return `fence: ${f.phase}${f.phase === 'Detected' && when ? `, ${when}` : ''}`;
}

function badgeText(fence: FenceBadge, warning: string | undefined): string {
  if (fence.held) return 'fence held by the budget';
  if (fence.phase === 'Cancelled') return `fence cancelled by ${fence.cancelledBy}`;
  if (warning) return warning;
  if (fence.phase === 'Released') return 'fence: released — power on or repair it';
  if (fence.phase)
    return `fence: ${fence.phase === 'AwaitingApproval' ? 'approval' : fence.phase.toLowerCase()}`;
  return 'fence coming';
}

/**
 * The fence badge's colours on a tile: on the panel colour, not a tint, since the tile under it is
 * tinted already (a warn tint on the warn-tinted Unknown tile read 4.3:1 in the dark theme, the
 * muted text of a cancelled fence 2.9-3.1:1: axe in e2e/reach.spec.ts). The tone is in the border.
 */
const TILE_BADGE: Record<Tone, string> = {
  bad: 'bg-panel text-crit border-crit/70',
  warn: 'bg-panel text-warn border-warn/70',
  info: 'bg-panel text-info border-info/70',
  ok: 'bg-panel text-ok border-ok/70',
  muted: 'bg-panel text-fg border-muted/70',
};

/** The tile's fence badge: the countdown in the warning window, then the phase in words. */
function FenceBadgeMark({ fence, node }: { fence: FenceBadge; node: string }) {
  const warning = useWarningText(fence);
  const phase: Phase = fence.held ? 'Detected' : (fence.phase ?? 'Detected');
  return (
    <>
      <span
        data-testid="node-fence"
        title={fenceWords(fence, node)}
        className={`col-span-2 self-start justify-self-start rounded border px-1 text-[9px] leading-tight ${TILE_BADGE[PHASE_TONE[phase]]}`}
      >
        {badgeText(fence, warning)}
      </span>
      {fence.cancellable && !fence.paused && <TileCancel fence={fence.fence} node={node} />}
    </>
  );
}

/** Cancel on the tile itself: in a 10-second window there is no time to open the node first. */
function TileCancel({ fence, node }: { fence: string; node: string }) {
  const { cluster, current } = useCluster();
  if (!cluster) return null;
  return (
    <span className="relative z-10 col-span-2">
      <CancelFenceButton
        cluster={cluster}
        fence={fence}
        label="Cancel…"
        ariaLabel={`Cancel the fence on ${node}`}
        disabled={current?.mode === 'read-only'}
        className="rounded border border-info bg-panel px-1 text-[10px] font-semibold leading-tight hover:bg-info/15 disabled:opacity-50"
      />
    </span>
  );
}

/** A node on the map. Memoized: re-renders only when its node, its pods array or selection change. */
export const NodeTile = memo(function NodeTile({
  node,
  pods,
  selected,
  dimmed,
  onSelect,
  ghosts,
  compact,
  guarded,
  fence,
}: NodeTileProps) {
  useSuspectTimer(node);
  const state = nodeDisplayState(node, Date.now());
  const guard = useMemo(
    () => ({ count: protectedCount(pods, guarded), protectors: protectorsOf(pods, guarded) }),
    [pods, guarded],
  );
  const label = `Node ${node.name}: ${NODE_STATE_LABEL[state]}${node.unschedulable && state !== 'cordoned' ? ', cordoned' : ''}; ${pods.length} pods${pods.length ? ` (${podCounts(pods)})` : ''}${guardText(guard.count, guard.protectors)}${ghostText(ghosts)}${showsFence(fence, state === 'ready') ? `; ${fenceWords(fence, node.name)}` : ''}`;
  const onClick = () => onSelect(node.name);
  if (compact)
    return (
      <button
        type="button"
        data-testid={`node-tile-${node.name}`}
        data-state={state}
        aria-label={label}
        aria-pressed={selected}
        title={label}
        onClick={onClick}
        className={`flex h-3.5 w-3.5 items-center justify-center rounded-[3px] ${NODE_DOT_CLASS[state]} ${
          selected ? 'outline-2 outline-offset-1 outline-info' : ''
        } ${dimmed ? 'opacity-20' : ''} ${
          ghosts ? (ghosts.critical ? 'ring-2 ring-crit' : 'ring-2 ring-warn') : ''
        } ${pods.some((p) => p.state === 'Terminating') ? 'border-2 border-dashed border-fg/60' : ''} hover:brightness-125 focus-visible:outline-2 focus-visible:outline-info`}
      >
        {/* the state's shape, cut out of the square: not by colour alone, even this small */}
        {state !== 'ready' && (
          <span aria-hidden="true" className={`block h-2 w-2 bg-panel ${SHAPE_CLASS[NODE_SHAPE[state]]}`} />
        )}
      </button>
    );
  const stateText = tileStateText(state);
  // A group named with everything the tile shows (tests, screen readers and the panel find a node
  // by it); the button inside is named by what it shows, the node's name and state in words, and
  // its ::after stretches over the tile so that a click anywhere selects the node. The counts
  // beside it repeat the group's name for sighted people.
  return (
    // biome-ignore lint/a11y/useSemanticElements: a map tile, not a form: a fieldset would say otherwise
    <div
      role="group"
      data-testid={`node-tile-${node.name}`}
      data-state={state}
      aria-label={label}
      title={label}
      className={`relative grid w-[110px] grid-cols-[minmax(0,1fr)_auto] gap-x-1 gap-y-1 rounded border px-1.5 pt-1 pb-1.5 transition-opacity ${NODE_TILE_CLASS[state]} ${
        selected ? 'outline-2 outline-offset-1 outline-info' : ''
      } ${dimmed ? 'opacity-25' : ''} has-[button:hover]:brightness-110`}
    >
      <button
        type="button"
        aria-pressed={selected}
        onClick={onClick}
        className="flex min-w-0 flex-col text-left font-mono text-[11px] leading-tight outline-none after:absolute after:inset-0 after:rounded after:content-[''] focus-visible:after:outline-2 focus-visible:after:outline-info"
      >
        <span className="truncate font-semibold">{node.name}</span>
        {stateText && (
          <span data-testid="node-state-text" className="flex items-center gap-1 font-sans text-[10px]">
            <NodeStateMark state={state} className="h-2 w-2" /> {stateText}
          </span>
        )}
      </button>
      <span className="flex items-baseline gap-1 self-start font-mono text-[11px] leading-tight">
        {guard.count > 0 && (
          <span
            data-testid="node-protected"
            className="flex shrink-0 items-center gap-px self-center text-[10px] leading-none text-info tabular-nums"
          >
            <ShieldIcon />
            {guard.count}
          </span>
        )}
        {showsHeartbeatAge(state) ? (
          <HeartbeatAge since={node.lastHeartbeat} className="shrink-0 text-[10px] tabular-nums" />
        ) : (
          <span className="shrink-0 text-[10px] text-dim tabular-nums">{pods.length}</span>
        )}
      </span>
      <span className="col-span-2">
        <PodMarks pods={pods} width={TILE_MARKS_WIDTH} guarded={guard.count ? guarded : undefined} />
      </span>
      {showsFence(fence, state === 'ready') && <FenceBadgeMark fence={fence} node={node.name} />}
      {ghosts && (
        <span
          aria-hidden="true"
          className={`pointer-events-none absolute -top-1.5 -right-1.5 rounded-full border border-dashed px-1 font-mono text-[9px] leading-tight ${
            ghosts.critical ? 'border-crit bg-crit text-on-fill' : 'border-warn bg-panel text-warn'
          }`}
        >
          {ghosts.total}
        </span>
      )}
    </div>
  );
});
