// State classification and colours for nodes and pods. Pure: no DOM, no React.
import type { NodeView, PodState, PodView } from '../protocol';

export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

/** What a node tile shows, most urgent first when several apply. */
export type NodeDisplayState = 'out-of-service' | 'unknown' | 'not-ready' | 'suspect' | 'cordoned' | 'ready';

export const NODE_DISPLAY_STATES: readonly NodeDisplayState[] = [
  'ready',
  'suspect',
  'unknown',
  'not-ready',
  'cordoned',
  'out-of-service',
];

export const NODE_STATE_LABEL: Record<NodeDisplayState, string> = {
  ready: 'Ready',
  suspect: 'Suspect',
  unknown: 'Unknown',
  'not-ready': 'NotReady',
  cordoned: 'Cordoned',
  'out-of-service': 'Out of service',
};

/** Heartbeat older than this on a Ready node makes it "suspect" (two missed lease renewals at 10 s). */
export const DEFAULT_SUSPECT_AFTER_MS = 25_000;

export function hasTaint(node: Pick<NodeView, 'taints'>, key: string): boolean {
  return node.taints.some((t) => t.key === key);
}

export function nodeDisplayState(
  node: Pick<NodeView, 'ready' | 'unschedulable' | 'taints' | 'lastHeartbeat'>,
  now: number,
  suspectAfterMs = DEFAULT_SUSPECT_AFTER_MS,
): NodeDisplayState {
  if (hasTaint(node, OUT_OF_SERVICE_TAINT)) return 'out-of-service';
  if (node.ready === 'Unknown') return 'unknown';
  if (node.ready === 'NotReady') return 'not-ready';
  if (node.lastHeartbeat !== undefined && now - node.lastHeartbeat > suspectAfterMs) return 'suspect';
  if (node.unschedulable) return 'cordoned';
  return 'ready';
}

/** Whether the tile should show a live "seconds since last heartbeat" counter. */
export function showsHeartbeatAge(state: NodeDisplayState): boolean {
  return state === 'unknown' || state === 'suspect' || state === 'not-ready' || state === 'out-of-service';
}

/**
 * Tailwind classes per node state. Full literal strings so Tailwind's scanner sees them.
 * Colours come from the theme tokens in app/globals.css (light and dark).
 */
export const NODE_TILE_CLASS: Record<NodeDisplayState, string> = {
  ready: 'border-ok/50 bg-ok/8',
  suspect: 'border-warn bg-warn/15',
  unknown: 'border-warn bg-warn/20 tile-pulse',
  'not-ready': 'border-crit bg-crit/15',
  cordoned: 'border-muted bg-muted/10 tile-stripes',
  'out-of-service': 'border-oos bg-oos/18 tile-stripes',
};

export const NODE_DOT_CLASS: Record<NodeDisplayState, string> = {
  ready: 'bg-ok',
  suspect: 'bg-warn',
  unknown: 'bg-warn',
  'not-ready': 'bg-crit',
  cordoned: 'bg-muted',
  'out-of-service': 'bg-oos',
};

/**
 * A shape per node state, so that no state is told by colour alone (Suspect and Unknown share
 * the amber): circle Ready, triangle Suspect, diamond Unknown, cross NotReady, bar Cordoned,
 * square Out of service. Each is a clip-path, so a mark is one element with the state's colour.
 */
export type NodeShape = 'circle' | 'triangle' | 'diamond' | 'cross' | 'bar' | 'square';

export const NODE_SHAPE: Record<NodeDisplayState, NodeShape> = {
  ready: 'circle',
  suspect: 'triangle',
  unknown: 'diamond',
  'not-ready': 'cross',
  cordoned: 'bar',
  'out-of-service': 'square',
};

export const SHAPE_CLASS: Record<NodeShape, string> = {
  circle: '[clip-path:circle(50%)]',
  triangle: '[clip-path:polygon(50%_0,100%_100%,0_100%)]',
  diamond: '[clip-path:polygon(50%_0,100%_50%,50%_100%,0_50%)]',
  cross:
    '[clip-path:polygon(20%_0,50%_30%,80%_0,100%_20%,70%_50%,100%_80%,80%_100%,50%_70%,20%_100%,0_80%,30%_50%,0_20%)]',
  bar: '[clip-path:inset(30%_0)]',
  square: '[clip-path:inset(5%)]',
};

/** The state's mark (legend, summary, lists, panel, tiles): its colour in its shape. */
export const NODE_MARK_CLASS: Record<NodeDisplayState, string> = Object.fromEntries(
  NODE_DISPLAY_STATES.map((s) => [s, `${NODE_DOT_CLASS[s]} ${SHAPE_CLASS[NODE_SHAPE[s]]}`]),
) as Record<NodeDisplayState, string>;

/**
 * The words a full-size tile shows for its state: every state but Ready (the calm default,
 * which the tile's name and marks already fill) says what it is, not only by colour.
 */
export function tileStateText(state: NodeDisplayState): string | undefined {
  return state === 'ready' ? undefined : NODE_STATE_LABEL[state];
}

export const POD_STATES: readonly PodState[] = [
  'Pending',
  'Running',
  'Ready',
  'Terminating',
  'Failed',
  'Succeeded',
  'Unknown',
];

/** Pod mark colours: mid-tone, readable on both light and dark tiles (used on canvas). */
export const POD_COLOR: Record<PodState, string> = {
  Pending: '#d4a017',
  Running: '#3b9ede',
  Ready: '#2fa865',
  Terminating: '#e8702a',
  Failed: '#e0443e',
  Succeeded: '#8a94a6',
  Unknown: '#9d7ad6',
};

export const POD_DOT_CLASS: Record<PodState, string> = {
  Pending: 'bg-[#d4a017]',
  Running: 'bg-[#3b9ede]',
  Ready: 'bg-[#2fa865]',
  Terminating: 'bg-[#e8702a]',
  Failed: 'bg-[#e0443e]',
  Succeeded: 'bg-[#8a94a6]',
  Unknown: 'bg-[#9d7ad6]',
};

/** When the pod's grace period ends (Kubernetes sets deletionTimestamp to request time + grace). */
export function graceDeadline(pod: Pick<PodView, 'deletionTimestamp'>): number | undefined {
  return pod.deletionTimestamp;
}

/** When the deletion was requested: the deadline minus the grace period. */
export function deletionRequestedAt(
  pod: Pick<PodView, 'deletionTimestamp' | 'deletionGracePeriodSeconds'>,
): number | undefined {
  if (pod.deletionTimestamp === undefined) return undefined;
  return pod.deletionTimestamp - (pod.deletionGracePeriodSeconds ?? 0) * 1000;
}

/** Terminating and past the end of its grace period. */
export function isOverdue(pod: Pick<PodView, 'state' | 'deletionTimestamp'>, now: number): boolean {
  return pod.state === 'Terminating' && pod.deletionTimestamp !== undefined && now > pod.deletionTimestamp;
}
