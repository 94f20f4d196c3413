'use client';
// Cells that show a live clock: each subscribes to the shared one-second clock itself, so the
// lists' column definitions stay constant and only the visible rows re-render each tick.
import type { PodView } from '@/lib/console/protocol';
import { formatAge, formatCountdown } from '@/lib/console/ui/format';
import { isOverdue } from '@/lib/console/ui/states';
import { useNow } from '../console/clock';

/** Time since `since` (ms since epoch), e.g. "1m05s" plus `suffix`; a dash when unknown. */
export function AgeCell({ since, suffix = '' }: { since: number | undefined; suffix?: string }) {
  const now = useNow(1000) || Date.now();
  return <span className="font-mono tabular-nums">{since ? `${formatAge(now - since)}${suffix}` : '—'}</span>;
}

/** A terminating pod's grace countdown, red once overdue. */
export function GraceCell({ pod }: { pod: PodView }) {
  const now = useNow(1000) || Date.now();
  if (!pod.deletionTimestamp) return null;
  return (
    <span className={`font-mono text-xs ${isOverdue(pod, now) ? 'font-semibold text-crit' : 'text-warn'}`}>
      {formatCountdown(pod.deletionTimestamp, now).text}
    </span>
  );
}
