'use client';
import type { PodView } from '@/lib/console/protocol';
import { formatClock, formatCountdown, formatOffset } from '@/lib/console/ui/format';
import { deletionRequestedAt } from '@/lib/console/ui/states';
import { layoutTimeline, type TerminationStep, type TimelineMark } from '@/lib/console/ui/timeline';
import { useNow } from '../console/clock';

const TONE_CLASS: Record<TimelineMark['tone'], string> = {
  neutral: 'bg-muted',
  info: 'bg-info',
  warn: 'bg-warn',
  crit: 'bg-crit',
  ok: 'bg-ok',
};
const TONE_TEXT: Record<TimelineMark['tone'], string> = {
  neutral: 'text-dim',
  info: 'text-info',
  warn: 'text-warn',
  crit: 'text-crit',
  ok: 'text-ok',
};

/** Seed 003's termination flow as a horizontal timeline, with a live grace countdown. */
export function TerminationTimeline({
  pod,
  steps,
  gone,
  stepsError,
}: {
  pod: PodView;
  steps: readonly TerminationStep[] | undefined;
  gone: boolean;
  stepsError?: string;
}) {
  const now = useNow(100) || Date.now();
  const layout = layoutTimeline(
    pod,
    steps,
    gone ? Math.max(...(steps ?? []).map((s) => s.at), pod.deletionTimestamp ?? 0) : now,
  );
  if (!layout) return null;
  const requested = deletionRequestedAt(pod);
  const countdown =
    pod.deletionTimestamp !== undefined && !gone && !layout.finished
      ? formatCountdown(pod.deletionTimestamp, now)
      : undefined;
  const ref = requested ?? layout.start;
  const lanes = Math.max(1, ...layout.marks.map((m) => m.lane + 1));

  return (
    <section aria-label="Termination timeline" className="rounded border border-line bg-panel p-3">
      <div className="mb-2 flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h2 className="text-xs font-semibold uppercase tracking-wide text-dim">Termination</h2>
        {pod.deletionGracePeriodSeconds !== undefined && (
          <span className="text-sm">
            grace period <span className="font-mono">{pod.deletionGracePeriodSeconds}s</span>
          </span>
        )}
        {pod.deletionTimestamp !== undefined && (
          <span className="text-sm text-dim">
            deletionTimestamp <span className="font-mono text-fg">{formatClock(pod.deletionTimestamp)}</span>
          </span>
        )}
        {countdown && (
          <span
            role="timer"
            aria-live="off"
            className={`rounded px-2 py-0.5 font-mono text-sm font-semibold tabular-nums ${
              countdown.overdue ? 'bg-crit/15 text-crit' : 'bg-warn/15 text-warn'
            }`}
          >
            {countdown.text}
          </span>
        )}
        {(gone || layout.finished) && <span className="text-sm text-dim">pod removed</span>}
      </div>

      <div className="relative mx-2 mt-2" style={{ height: 34 + lanes * 30 }}>
        {/* axis */}
        <div className="absolute top-[14px] right-0 left-0 h-[2px] bg-line" />
        {layout.grace && (
          <div
            className="absolute top-[8px] h-[14px] rounded-sm border border-warn/60 bg-warn/15"
            style={{
              left: `${layout.grace.x0 * 100}%`,
              width: `${Math.max(0.3, (layout.grace.x1 - layout.grace.x0) * 100)}%`,
            }}
            title="grace period"
          />
        )}
        {layout.preStop && (
          <div
            className={`absolute top-[11px] h-[8px] rounded-sm ${layout.preStop.cutShort ? 'bg-crit/60' : 'bg-info/60'}`}
            style={{
              left: `${layout.preStop.x0 * 100}%`,
              width: `${Math.max(0.3, (layout.preStop.x1 - layout.preStop.x0) * 100)}%`,
            }}
            title={layout.preStop.cutShort ? 'preStop hook (cut short)' : 'preStop hook'}
          />
        )}
        {layout.marks.map((m) => (
          <div
            key={`${m.kind}-${m.label}-${m.at}`}
            className="absolute top-0"
            style={{ left: `${m.x * 100}%` }}
            title={`${m.label} at ${formatClock(m.at)} (${formatOffset(m.at - ref)})${m.detail ? ` — ${m.detail}` : ''}`}
          >
            <div
              className={`absolute top-[6px] -ml-[1px] w-[2px] ${m.kind === 'now' ? 'bg-info' : TONE_CLASS[m.tone]}`}
              style={{ height: 20 + m.lane * 30 }}
            />
            <div
              className={`absolute -ml-[5px] top-[9px] h-[10px] w-[10px] rounded-full border-2 border-panel ${TONE_CLASS[m.tone]}`}
            />
            <div
              className={`absolute whitespace-nowrap text-[11px] leading-tight ${TONE_TEXT[m.tone]} ${m.x > 0.8 ? '-translate-x-full text-right' : ''}`}
              style={{ top: 28 + m.lane * 30 }}
            >
              <div className="font-medium">{m.label}</div>
              <div className="font-mono text-dim">{formatOffset(m.at - ref)}</div>
            </div>
          </div>
        ))}
      </div>

      {steps && steps.length > 0 && (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-dim">every step ({steps.length})</summary>
          <table className="mt-1 w-full">
            <tbody>
              {[...steps]
                .sort((a, b) => a.at - b.at)
                .map((s) => (
                  <tr key={`${s.step}-${s.at}-${s.detail ?? ''}`} className="border-t border-line">
                    <td className="py-0.5 pr-3 font-mono">{formatClock(s.at)}</td>
                    <td className="py-0.5 pr-3 font-mono text-dim">{formatOffset(s.at - ref)}</td>
                    <td className="py-0.5 pr-3">{s.step}</td>
                    <td className="py-0.5 text-dim">{s.detail ?? ''}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </details>
      )}
      {!steps?.length && (
        <p className="mt-2 text-xs text-dim">
          {stepsError
            ? `Kubelet steps unavailable: ${stepsError}. `
            : 'No kubelet steps recorded yet (only the embedded cluster records them; a partitioned kubelet reports nothing). '}
          Shown from the pod's own fields.
        </p>
      )}
    </section>
  );
}
