'use client';
// "Cancel all" from the announced-fences bar: every fence Palisade will run by itself, cancelled
// with one reason, each its own cancelFence through the one seam (BulkActionDialog). A fence
// whose agent has run meanwhile is refused there and says so on its line.
import type { Announced } from '@/lib/fencing/announced';
import { secondsLeft } from '@/lib/fencing/announced';
import { useNow } from '../console/clock';
import { openBulkAction } from './BulkActionDialog';

export function openCancelAll(cluster: string, items: readonly Announced[]): void {
  const n = items.length;
  openBulkAction({
    cluster,
    testId: 'cancel-all',
    title: n === 1 ? 'Cancel the announced fence' : `Cancel all ${n} announced fences`,
    intro:
      'Each fence stops before any agent runs; its node stays as it is, and its pods and volumes stay where they are until someone decides. A fence whose agent has already run cannot be cancelled: it says so below.',
    action: 'cancelFence',
    reasonRequired: true,
    items: items.map((a) => ({
      key: a.fence,
      label: a.node,
      target: { action: 'cancelFence', cluster, fence: a.fence },
      detail: <Left a={a} />,
    })),
    words: {
      doing: 'cancelling…',
      done: 'cancelled',
      notDone: 'not cancelled',
      keep: 'Keep them',
      submit: n === 1 ? 'Cancel the fence' : `Cancel ${n} fences`,
    },
  });
}

/** The fence's policy and the time left before it runs, counting down. */
function Left({ a }: { a: Announced }) {
  const now = useNow(1000);
  return (
    <>
      <span className="text-dim">policy {a.policy}</span>
      <span className="text-warn">{leftText(a, now)}</span>
    </>
  );
}

function leftText(a: Announced, now: number): string {
  if (a.paused) return 'held (policy paused)';
  if (a.fenceAt === undefined || now === 0) return 'announced';
  const s = secondsLeft(a.fenceAt, now);
  return s === 0 ? 'due now' : `runs in ${s} s`;
}
