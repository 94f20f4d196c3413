'use client';
// "Fence all held" (issue 25, item 5): every node whose fence the fencing budget holds, fenced by
// hand at once — each its own fenceNode through the one seam, overriding the budget, recorded
// with the person's name and reason. The budget holds fences when many nodes look down at once
// because the control plane may be the one cut off: the dialog shows each node's live verdict,
// and a phrase naming the whole set ("fence 3 nodes") is the typed confirmation (lib/guard/bulk).
import { bulkPhrase } from '@/lib/guard/bulk';
import { openBulkAction } from '../actions/BulkActionDialog';
import { useMay } from '../auth/access';

export interface HeldNode {
  node: string;
  why: string;
}

export function FenceAllHeldButton({
  cluster,
  held,
  disabled,
}: {
  cluster: string;
  held: readonly HeldNode[];
  disabled?: boolean;
}) {
  const may = useMay(cluster, { action: 'fenceNode', node: held[0]?.node ?? '' });
  const n = held.length;
  if (n < 2) return null;
  const denied = may.allowed === false;
  return (
    <button
      type="button"
      data-testid="fence-all-held"
      disabled={disabled || denied}
      title={denied ? may.reason : `Fence the ${n} nodes the budget holds, overriding it`}
      onClick={() => openFenceAllHeld(cluster, held)}
      className="rounded border border-crit/70 px-2 py-0.5 text-xs font-semibold text-crit hover:bg-crit/10 disabled:opacity-50"
    >
      Fence all {n} held…
    </button>
  );
}

function openFenceAllHeld(cluster: string, held: readonly HeldNode[]) {
  const n = held.length;
  openBulkAction({
    cluster,
    testId: 'fence-held',
    title: `Fence all ${n} nodes the budget holds`,
    intro:
      'The fencing budget holds these fences: when many nodes look down at once, the control plane may be the one cut off, and fencing them all would power off healthy nodes. Fence them only once you know they are down. Each is its own Fence now, overriding the budget, recorded with your name and reason.',
    action: 'fenceNode',
    reasonRequired: true,
    items: held.map((h) => ({
      key: h.node,
      label: h.node,
      // the line shows the live verdict, which says why the budget holds it
      target: { action: 'fenceNode', cluster, node: h.node },
    })),
    words: {
      doing: 'fencing…',
      done: 'started',
      notDone: 'not fenced',
      keep: 'Keep them held',
      submit: `Fence ${n} nodes`,
    },
    override: {
      phrase: bulkPhrase('fence', n, 'node'),
      what: 'to fence them all despite the budget (each line says what can go wrong)',
    },
  });
}
