'use client';
// The incident view's first screen: each fence Palisade will run by itself, soonest first, with
// its countdown and Cancel at hand (issue 25: "Cancel fence…" sat below ten at-risk rows). The
// same announced list as the sticky bar and the tiles.
import { secondsLeft } from '@/lib/fencing/announced';
import { CancelFenceButton, PausePolicyButton } from '../actions/GuardedActionButtons';
import { useNow } from '../console/clock';
import { useAnnounced } from '../fencing/live';

export function AnnouncedFences({ cluster, readOnly }: { cluster: string; readOnly: boolean }) {
  const { summary } = useAnnounced();
  const now = useNow(1000);
  if (!summary.items.length) return null;
  return (
    <section
      aria-labelledby="announced-fences"
      data-testid="incident-announced"
      className="border-b border-warn/60 px-3 py-2"
    >
      <h2 id="announced-fences" className="mb-1 text-sm font-semibold text-warn">
        Fences Palisade will run unless someone stops them
      </h2>
      <ul className="flex flex-col gap-1 text-sm">
        {summary.items.map((a) => (
          <li key={a.node} data-testid={`announced-${a.node}`} className="flex flex-wrap items-center gap-2">
            <span className="whitespace-nowrap font-mono font-semibold">{a.node}</span>
            <span className="text-dim">policy {a.policy}</span>
            <span className="font-semibold text-warn tabular-nums">
              {a.paused
                ? 'held: policy paused'
                : a.fenceAt === undefined || now === 0
                  ? 'announced'
                  : secondsLeft(a.fenceAt, now) === 0
                    ? 'due now'
                    : `in ${secondsLeft(a.fenceAt, now)} s`}
            </span>
            <CancelFenceButton
              cluster={cluster}
              fence={a.fence}
              disabled={readOnly}
              ariaLabel={`Cancel fence on ${a.node}`}
            />
            <PausePolicyButton cluster={cluster} policy={a.policy} paused={a.paused} disabled={readOnly} />
          </li>
        ))}
      </ul>
    </section>
  );
}
