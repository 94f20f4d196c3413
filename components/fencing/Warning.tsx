'use client';
// The warning window, counting down live: "fenced automatically in N s unless cancelled", or
// "fence paused by policy <name>". One shared 1-second clock (components/console/clock), so a
// page of countdowns is one timer. Text, never colour alone; not a live region (a screen reader
// would be told every second): the phase badge and the card's heading carry the state.
import { warningOf, warningText } from '@/lib/fencing/view';
import type { Phase } from '@/lib/fencing/types';
import { useNow } from '../console/clock';

export interface WarningProps {
  /** ISO time the agent may run */
  fenceAt?: string;
  paused: boolean;
  policy: string;
  /** the fence's phase; undefined for a fence not detected yet (upcoming) */
  phase?: Phase;
  className?: string;
  testId?: string;
}

/** The warning's words now, or undefined once there is nothing to warn about. */
export function useWarningText(p: Omit<WarningProps, 'className' | 'testId'>): string | undefined {
  const now = useNow(1000);
  if (now === 0) return undefined;
  const fenceAt = p.fenceAt ? Date.parse(p.fenceAt) : undefined;
  const w = warningOf({ fenceAt, paused: p.paused, policy: p.policy, phase: p.phase }, now);
  return w && warningText(w);
}

export function FenceWarning({ className, testId = 'fence-warning', ...p }: WarningProps) {
  const text = useWarningText(p);
  if (!text) return null;
  return (
    <span data-testid={testId} className={className ?? 'font-medium text-warn'}>
      {text}
    </span>
  );
}
