'use client';
// Replay: the map's nodes as the history says they were at time T, each tile naming its state
// in words (Ready, Unknown, NotReady, or "no record" — never guessed), the fence phase then, the
// last simulated fault and the pods that ran there.
import { type Replay, type ReplayNode, type ReplayPod, replayLayout } from '@/lib/history/replay';

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
  // as the map lays nodes out: a zone, its racks, their nodes (a node gone since: "no zone now")
  return (
    <ul aria-label={`Nodes at ${replay.at}`} className="flex flex-col gap-1.5">
      {replayLayout(replay.nodes).map((z) => (
        <li key={z.zone} data-testid={`replay-zone-${z.zone || 'none'}`}>
          <span className="font-semibold uppercase">{z.zone || 'no zone now'}</span>
          <div className="mt-0.5 flex flex-wrap gap-1.5">
            {z.racks.map((r) => (
              <div key={r.rack} className="min-w-[9rem] flex-1 rounded border border-line p-1">
                <span className="text-dim">rack {r.rack || '—'}</span>
                <ul
                  aria-label={`rack ${r.rack || '—'}`}
                  className="grid grid-cols-[repeat(auto-fill,minmax(9rem,1fr))] gap-1.5"
                >
                  {r.nodes.map((n) => (
                    <Tile key={n.node} n={n} />
                  ))}
                </ul>
              </div>
            ))}
          </div>
        </li>
      ))}
    </ul>
  );
}

function Tile({ n }: { n: ReplayNode }) {
  return (
    <li
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
      {n.pods && n.pods.length > 0 && <Pods pods={n.pods} node={n.node} />}
    </li>
  );
}

/** pods listed per tile before "and N more" */
const PODS_SHOWN = 6;

function Pods({ pods, node }: { pods: ReplayPod[]; node: string }) {
  return (
    <ul aria-label={`Pods on ${node}`} className="mt-0.5 border-t border-line pt-0.5">
      {pods.slice(0, PODS_SHOWN).map((p) => (
        <li
          key={`${p.namespace}/${p.name}`}
          title={`${p.namespace}/${p.name}`}
          className={`truncate font-mono text-[10px] ${p.terminating ? 'text-warn' : ''}`}
        >
          {p.name}
          {p.terminating ? ' (terminating)' : ''}
        </li>
      ))}
      {pods.length > PODS_SHOWN && (
        <li className="text-[10px] text-dim">and {pods.length - PODS_SHOWN} more</li>
      )}
    </ul>
  );
}
