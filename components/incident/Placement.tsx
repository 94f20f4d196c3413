'use client';
// Placement (issue 25, finding 8): replicas of one workload that one node, rack or zone failure
// would take together — after a recovery the replacements often land close together — with the
// safe way to rebalance: Evict, the guarded action through the one seam. Shown whenever there is
// any, calm or not: it is the next incident's risk.
import Link from 'next/link';
import { spreadText } from '@/lib/incident/spread';
import { EvictButton } from '../actions/GuardedActionButtons';
import { podHref } from './links';
import type { IncidentData } from './live';

export function Placement({
  cluster,
  data,
  readOnly,
}: {
  cluster: string;
  data: IncidentData;
  readOnly: boolean;
}) {
  if (!data.spread.length) return null;
  return (
    <section aria-labelledby="incident-placement-h" data-testid="incident-placement" className="px-3 py-2">
      <h2 id="incident-placement-h" className="mb-1 text-sm font-semibold">
        Placement ({data.spread.length})
      </h2>
      <ul className="flex flex-col gap-1 text-sm">
        {data.spread.map((s) => {
          const t = spreadText(s);
          return (
            <li
              key={`${s.workload.kind}/${s.workload.namespace}/${s.workload.name}`}
              data-testid="incident-spread"
            >
              <span className="font-semibold text-warn">{t.what}</span>
              <span className="flex flex-wrap items-center gap-2 text-xs">
                <span>
                  Safe next action:{' '}
                  <Link href={podHref(cluster, s.evict)} className="text-info hover:underline">
                    {t.next}
                  </Link>
                </span>
                {/* one click to the guarded dialog: it judges strength, node and budgets live */}
                <EvictButton
                  cluster={cluster}
                  namespace={s.evict.namespace}
                  name={s.evict.name}
                  disabled={readOnly}
                />
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
