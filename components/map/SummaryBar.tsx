'use client';
import { useMemo } from 'react';
import type { PodState } from '@/lib/console/protocol';
import type { NodeCollection, PodCollection } from '@/lib/console/ui/live';
import {
  NODE_DISPLAY_STATES,
  NODE_DOT_CLASS,
  NODE_STATE_LABEL,
  POD_DOT_CLASS,
  POD_STATES,
} from '@/lib/console/ui/states';
import { summarize } from '@/lib/console/ui/summary';
import { useNow } from '../console/clock';

function Count({ dot, label, n, strong }: { dot: string; label: string; n: number; strong?: boolean }) {
  return (
    <span
      className={`flex items-center gap-1 whitespace-nowrap ${n === 0 ? 'text-dim/70' : strong ? 'font-semibold' : ''}`}
    >
      <span className={`inline-block h-2 w-2 rounded-sm ${dot}`} aria-hidden="true" />
      <span className="tabular-nums">{n}</span>
      <span className="text-dim">{label}</span>
    </span>
  );
}

const SHOWN_POD_STATES: PodState[] = POD_STATES.filter((s) => s !== 'Succeeded' && s !== 'Unknown');

export function SummaryBar({ nodes, pods }: { nodes?: NodeCollection; pods?: PodCollection }) {
  const now = useNow(1000);
  const s = useMemo(
    () => summarize(nodes?.byKey.values() ?? [], pods?.byKey.values() ?? [], now || Date.now()),
    [nodes, pods, now],
  );
  return (
    <section
      aria-label="Cluster summary"
      className="flex flex-wrap items-center gap-x-5 gap-y-1 border-b border-line bg-panel px-3 py-1.5 text-xs"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-semibold">{s.nodes.total} nodes</span>
        {NODE_DISPLAY_STATES.map((st) => (
          <Count
            key={st}
            dot={NODE_DOT_CLASS[st]}
            label={NODE_STATE_LABEL[st]}
            n={s.nodes.byState[st]}
            strong={st !== 'ready'}
          />
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-semibold">{s.pods.total} pods</span>
        {SHOWN_POD_STATES.map((st) => (
          <Count
            key={st}
            dot={POD_DOT_CLASS[st]}
            label={st}
            n={s.pods.byState[st]}
            strong={st !== 'Ready' && st !== 'Running'}
          />
        ))}
        {s.pods.byState.Unknown > 0 && (
          <Count dot={POD_DOT_CLASS.Unknown} label="Unknown" n={s.pods.byState.Unknown} strong />
        )}
      </div>
      <div
        className={`ml-auto flex items-center gap-1 rounded px-2 py-0.5 ${
          s.pods.overdue > 0 ? 'bg-crit/15 font-semibold text-crit' : 'text-dim'
        }`}
        title="Pods still Terminating after their grace period ended"
      >
        <span className="tabular-nums">{s.pods.overdue}</span> terminating past grace
      </div>
    </section>
  );
}
