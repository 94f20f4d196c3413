'use client';
// The map's ground-truth overlay (embedded cluster only): how many processes run where the
// API cannot see them, opening to the full list.
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useGhosts } from '../console/groundTruth';
import { GhostList } from './GhostList';

export function GhostSummary() {
  const { cluster, current } = useCluster();
  const msg = useGhosts(current?.embedded ? cluster : undefined);
  const now = useNow(1000) || Date.now();
  if (!current?.embedded || !msg?.synced) return null;
  const total = msg.ghosts.length + msg.omitted;
  const critical = msg.ghosts.filter((g) => g.critical).length;
  if (total === 0)
    return (
      <span className="text-xs text-dim" title="ground truth of the simulated cluster">
        Ground truth (simulation): all {msg.processes} processes visible to the API
      </span>
    );
  return (
    <details className="relative text-xs" data-testid="ghost-summary">
      <summary
        className={`cursor-pointer select-none rounded border border-dashed px-2 py-0.5 ${critical ? 'border-crit/70 text-crit' : 'border-warn/70 text-warn'}`}
      >
        Ground truth (simulation): {total} {total === 1 ? 'process runs' : 'processes run'} out of the API's
        sight
        {critical ? ` (${critical} ghost${critical === 1 ? '' : 's'})` : ''}
      </summary>
      <div className="absolute left-0 z-30 mt-1 max-h-96 w-[28rem] overflow-auto bg-panel shadow-lg">
        <GhostList ghosts={msg.ghosts} title="Processes out of the API's sight" now={now} />
        {msg.omitted > 0 && <p className="p-2 text-dim">…and {msg.omitted} more</p>}
      </div>
    </details>
  );
}
