'use client';
// The situation header: each count with its change over the last 5 and 15 minutes, and how fresh
// the data is. A count above zero is marked in words ("needs attention"), not by colour alone.
import { SITUATION_KEYS, type SituationKey } from '@/lib/incident/types';
import { situationLabel } from '@/lib/incident/text';
import type { IncidentData } from './live';

function changeText(n: number | undefined, window: string): string | undefined {
  if (n === undefined) return undefined;
  if (n === 0) return `${window}: no change`;
  return `${window}: ${n > 0 ? '+' : '−'}${Math.abs(n)}`;
}

function Count({ k, data }: { k: SituationKey; data: IncidentData }) {
  const n = data.situation[k];
  const c = data.changes[k];
  const trend = [changeText(c.m5, '5 min'), changeText(c.m15, '15 min')].filter(Boolean).join(' · ');
  return (
    <li
      className={`flex min-w-44 flex-col rounded border px-2 py-1 ${n > 0 ? 'border-warn bg-warn/10' : 'border-line'}`}
      data-testid={`incident-count-${k}`}
    >
      <span>
        <span className="text-lg font-semibold tabular-nums">{n}</span> {situationLabel(k, n)}
        {n > 0 && <span className="sr-only"> (needs attention)</span>}
      </span>
      {/* the trend only once there is a sample to compare with (issue 25: "no sample yet" × 11) */}
      {trend && <span className="text-xs text-dim">{trend}</span>}
    </li>
  );
}

export function Situation({ data }: { data: IncidentData }) {
  return (
    <section aria-labelledby="incident-situation-h" data-testid="incident-situation" className="px-3 py-2">
      <h2 id="incident-situation-h" className="mb-1 text-sm font-semibold">
        Situation
      </h2>
      <ul className="flex flex-wrap gap-2 text-sm">
        {SITUATION_KEYS.map((k) => (
          <Count key={k} k={k} data={data} />
        ))}
      </ul>
    </section>
  );
}
