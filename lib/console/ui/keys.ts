// Keyboard shortcuts: a small state machine for "g m"-style sequences. Pure.

export type ShortcutAction =
  | 'focus-search'
  | 'toggle-help'
  | 'close'
  | 'go-map'
  | 'go-nodes'
  | 'go-pods'
  | 'go-protectors'
  | 'go-volumes'
  | 'go-fencing'
  | 'go-audit'
  | 'go-instance-ids'
  | 'go-leadership'
  | 'go-incident'
  | 'go-timeline';

export interface Shortcut {
  keys: string;
  action: ShortcutAction;
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: '/', action: 'focus-search', description: 'Focus the search box' },
  { keys: '?', action: 'toggle-help', description: 'Show or hide this help' },
  { keys: 'g m', action: 'go-map', description: 'Go to the cluster map' },
  {
    keys: 'g i',
    action: 'go-incident',
    description: 'Go to the incident view (what is broken, at risk, being done, safe next; g c too)',
  },
  { keys: 'g t', action: 'go-timeline', description: 'Go to the incident timeline and replay' },
  { keys: 'g n', action: 'go-nodes', description: 'Go to the node list' },
  { keys: 'g p', action: 'go-pods', description: 'Go to the pod list' },
  { keys: 'g r', action: 'go-protectors', description: 'Go to the deletion protectors' },
  { keys: 'g v', action: 'go-volumes', description: 'Go to the volumes (RWO attach state)' },
  { keys: 'g f', action: 'go-fencing', description: 'Go to fencing (node fences and policies)' },
  { keys: 'g a', action: 'go-audit', description: 'Go to the audit of guarded actions' },
  {
    keys: 'g d',
    action: 'go-instance-ids',
    description: 'Go to the instance IDs (maps, stale entries, conflicts)',
  },
  {
    keys: 'g l',
    action: 'go-leadership',
    description: 'Go to the leadership (controller Lease, epoch, loops, stale writes)',
  },
  { keys: 'Esc', action: 'close', description: 'Close the side panel or overlay' },
];

export interface KeyState {
  /** pending prefix key and when it was pressed */
  prefix?: { key: string; at: number };
}

export interface KeyInput {
  key: string;
  at: number;
  ctrl?: boolean;
  meta?: boolean;
  alt?: boolean;
  /** the event target is an editable element (input, textarea, select, contenteditable) */
  editable?: boolean;
}

export const SEQUENCE_TIMEOUT_MS = 1200;

const SEQUENCES: Record<string, ShortcutAction> = {
  'g m': 'go-map',
  'g n': 'go-nodes',
  'g p': 'go-pods',
  'g r': 'go-protectors',
  'g v': 'go-volumes',
  'g f': 'go-fencing',
  'g a': 'go-audit',
  // issue 25: a commander reaches for "g i" for the incident; "g c" stays for those who learnt it
  'g i': 'go-incident',
  'g d': 'go-instance-ids',
  'g l': 'go-leadership',
  'g c': 'go-incident',
  'g t': 'go-timeline',
};

export function handleKey(state: KeyState, k: KeyInput): { state: KeyState; action?: ShortcutAction } {
  if (k.key === 'Escape') return { state: {}, action: 'close' };
  if (k.editable || k.ctrl || k.meta || k.alt) return { state: {} };
  if (state.prefix && k.at - state.prefix.at <= SEQUENCE_TIMEOUT_MS) {
    const action = SEQUENCES[`${state.prefix.key} ${k.key}`];
    if (action) return { state: {}, action };
  }
  if (k.key === 'g') return { state: { prefix: { key: 'g', at: k.at } } };
  if (k.key === '/') return { state: {}, action: 'focus-search' };
  if (k.key === '?') return { state: {}, action: 'toggle-help' };
  return { state: {} };
}
