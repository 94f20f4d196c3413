'use client';
// Replay: the map's nodes as the history says they were at time T, each tile naming its state
// in words (Ready, Unknown, NotReady, or "no record" — never guessed), the fence phase then and
// the last simulated fault.
import type { Replay, ReplayNode } from '@/lib/history/replay';

const TILE: Record<ReplayNode['ready'], string> = {
  Ready: 'border-ok/50',
  NotReady: 'border-crit',
  Unknown: 'border-warn border-dashed',
  unrecorded: 'border-line border-dotted',
};

const STATE_TEXT: Record<ReplayNode['ready'], string> = {
  Ready: 'Ready',
  NotReady: 'NotReady',
  Unknown: 'Unknown',
  unrecorded: 'no record',
};

export function ReplayGrid({ replay }: { replay: Replay }) {
  return (
    <ul
      aria-label={`Nodes at ${replay.at}`}
      className="grid grid-cols-[repeat(auto-fill,minmax(9rem,1fr))] gap-1.5"
    >
      {replay.nodes.map((n) => (
        <li
          key={n.node}
          data-testid={`replay-node-${n.node}`}
          data-state={n.ready}
          className={`rounded border-2 px-2 py-1 text-xs ${TILE[n.ready]}`}
        >
          <span className="block font-mono font-semibold">{n.node}</span>
          <span className="block" data-testid="replay-state">
            {STATE_TEXT[n.ready]}
          </span>
          {n.fence && <span className="block text-dim">fence: {n.fence.phase}</span>}
          {n.fault && <span className="block text-dim">last fault: {n.fault.verb}</span>}
        </li>
      ))}
    </ul>
  );
}
