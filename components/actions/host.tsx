'use client';
// One guarded-action dialog for the whole page, owned by a host mounted once in the shell, so
// that it outlives the button that opened it: a pod's page hides its "Force delete…" once the
// pod is gone, a node panel its "Remove taint…" once the taint is — and the dialog must stay to
// show the outcome. Without a host mounted, buttons keep the dialog themselves.
import { useEffect, useSyncExternalStore } from 'react';
import type { ActionTarget, Performed } from './api';
import { GuardedActionDialog } from './GuardedActionDialog';

interface State {
  target?: ActionTarget;
  onDone?: (r: Performed) => void;
  /** bumps on every opening, so reopening the same target starts a fresh dialog */
  opened: number;
}

let state: State = { opened: 0 };
let hosts = 0;
const listeners = new Set<() => void>();

function set(next: State) {
  state = next;
  for (const l of listeners) l();
}

/** Opens the dialog in the host; false when no host is mounted. */
export function openGuardedAction(target: ActionTarget, onDone?: (r: Performed) => void): boolean {
  if (hosts === 0) return false;
  set({ target, onDone, opened: state.opened + 1 });
  return true;
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function GuardedActionHost() {
  const s = useSyncExternalStore(
    subscribe,
    () => state,
    () => state,
  );
  useEffect(() => {
    hosts++;
    return () => {
      hosts--;
    };
  }, []);
  if (!s.target) return null;
  return (
    <GuardedActionDialog
      key={s.opened}
      target={s.target}
      onDone={s.onDone}
      onClose={() => set({ opened: s.opened })}
    />
  );
}
