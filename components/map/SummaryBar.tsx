'use client';
import Link from 'next/link';
import { useMemo } from 'react';
import type { ProtectionSummary } from '@/lib/console/ui/protection';
import type { PodState } from '@/lib/console/protocol';
import type { NodeCollection, PodCollection } from '@/lib/console/ui/live';
import {
  NODE_DISPLAY_STATES,
  NODE_MARK_CLASS,
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

/** Anything an incident commander should look at: a node not Ready (or suspect, out of service), a pod past its grace, a protector at its floor. */
function unhealthy(s: ReturnType<typeof summarize>, protection?: ProtectionSummary): boolean {
  const b = s.nodes.byState;
  return (
    b.suspect + b.unknown + b['not-ready'] + b['out-of-service'] > 0 ||
    s.pods.overdue > 0 ||
    (protection?.atOrBelowFloor ?? 0) > 0
  );
}

const SHOWN_POD_STATES: PodState[] = POD_STATES.filter((s) => s !== 'Succeeded' && s !== 'Unknown');

/** Protectors, and how many stand at or below their floor (no deletion would be admitted). */
function ProtectorCount({ s }: { s: ProtectionSummary }) {
  const alarm = s.atOrBelowFloor > 0;
  return (
    <Link
      href="/protectors"
      data-testid="summary-protectors"
      title="PodProtectors; at or below floor: every deletion of a pod they guard is refused now"
      className={`flex items-center gap-1 whitespace-nowrap rounded px-1.5 py-0.5 hover:underline ${
        alarm ? 'bg-warn/15 font-semibold text-warn' : 'text-dim'
      }`}
    >
      <span className="tabular-nums">{s.total}</span> protector{s.total === 1 ? '' : 's'}
      <span aria-hidden="true">·</span>
      <span className="tabular-nums">{s.atOrBelowFloor}</span> at or below floor
      {s.dangling > 0 && (
        <>
          <span aria-hidden="true">·</span>
          <span className="tabular-nums text-oos">{s.dangling} dangling</span>
        </>
      )}
    </Link>
  );
}

export function SummaryBar({
  nodes,
  pods,
  protection,
}: {
  nodes?: NodeCollection;
  pods?: PodCollection;
  /** deletion protection, when the console runs it */
  protection?: ProtectionSummary;
}) {
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
            dot={NODE_MARK_CLASS[st]}
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
      {protection && <ProtectorCount s={protection} />}
      {unhealthy(s, protection) && (
        <Link
          href="/incident"
          data-testid="summary-incident"
          className="rounded border border-crit/60 px-2 py-0.5 font-semibold hover:underline"
        >
          Open incident view
        </Link>
      )}
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
