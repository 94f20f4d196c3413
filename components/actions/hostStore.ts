'use client';
// The guarded-action dialog host's store (host.tsx renders it): which dialog is open. Apart from
// host.tsx so that the dialog itself can open another one (Fence now instead of a force delete)
// without importing the host that renders it.
import type { ActionTarget, Performed } from './api';

export interface HostState {
  target?: ActionTarget;
  onDone?: (r: Performed) => void;
  /** bumps on every opening, so reopening the same target starts a fresh dialog */
  opened: number;
}

let state: HostState = { opened: 0 };
let hosts = 0;
const listeners = new Set<() => void>();

function set(next: HostState) {
  state = next;
  for (const l of listeners) l();
}

/** Opens the dialog in the host; false when no host is mounted. */
export function openGuardedAction(target: ActionTarget, onDone?: (r: Performed) => void): boolean {
  if (hosts === 0) return false;
  set({ target, onDone, opened: state.opened + 1 });
  return true;
}

export const hostState = () => state;

export function closeHostDialog(opened: number): void {
  set({ opened });
}

export function subscribeHost(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** A host mounts (and later unmounts): only then do buttons open their dialog there. */
export function hostMounted(): () => void {
  hosts++;
  return () => {
    hosts--;
  };
}
