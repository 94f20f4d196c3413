'use client';
// How long is left before the fence runs, in the Cancel and Pause dialogs: a person deciding
// whether to stop a fence must see that it runs in 6 s (issue 25). Read from the same announced
// list as the sticky bar; live on the shared 1-second clock.
import { secondsLeft } from '@/lib/fencing/announced';
import { useNow } from '../console/clock';
import { useAnnounced } from '../fencing/live';
import type { ActionTarget } from './api';

export function TimeLeft({ target }: { target: ActionTarget }) {
  const { summary } = useAnnounced();
  const now = useNow(1000);
  const items = summary.items.filter((a) =>
    target.action === 'cancelFence'
      ? a.fence === target.fence
      : target.action === 'pauseFencePolicy' && a.policy === target.policy,
  );
  if (!items.length || now === 0) return null;
  const first = items[0]!;
  const text = first.paused
    ? `held: policy ${first.policy} is paused`
    : first.fenceAt === undefined
      ? 'announced: the warning window is not known'
      : secondsLeft(first.fenceAt, now) === 0
        ? 'due now: the agent may run any moment'
        : `runs in ${secondsLeft(first.fenceAt, now)} s unless cancelled`;
  const what =
    items.length > 1 ? `${items.length} fences (next: ${first.node})` : `The fence on ${first.node}`;
  return (
    <p
      data-testid="guarded-time-left"
      className="rounded border border-warn/60 bg-warn/10 p-1.5 font-semibold text-warn"
    >
      {what} {text}
    </p>
  );
}
