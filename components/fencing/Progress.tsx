import type { ProgressStep } from '@/lib/fencing/view';
import { formatClock } from '@/lib/console/ui/format';

const DOT: Record<ProgressStep['state'], string> = {
  done: 'bg-ok border-ok',
  current: 'bg-info border-info animate-pulse',
  todo: 'bg-transparent border-line',
  failed: 'bg-transparent border-crit/50',
};

/** The fence's path as a row of steps: done, current (pulsing) and ahead, with when each was reached. */
export function Progress({ steps, failed }: { steps: ProgressStep[]; failed?: boolean }) {
  return (
    <ol
      aria-label="Fencing progress"
      className="flex flex-wrap items-center gap-1"
      data-testid="fence-progress"
    >
      {steps.map((s, i) => (
        <li
          key={s.phase}
          className="flex items-center gap-1"
          title={`${s.phase}${s.at ? ` at ${formatClock(Date.parse(s.at))}` : ''}`}
          data-state={s.state}
        >
          {i > 0 && (
            <span
              className={`h-px w-3 ${s.state === 'todo' || s.state === 'failed' ? 'bg-line' : 'bg-ok'}`}
            />
          )}
          <span
            className={`inline-block h-2.5 w-2.5 rounded-full border ${s.state === 'current' && failed ? 'bg-crit border-crit' : DOT[s.state]}`}
          />
          <span
            className={`text-[11px] ${s.state === 'todo' || s.state === 'failed' ? 'text-dim' : 'text-fg'}`}
          >
            {s.phase === 'AwaitingApproval' ? 'Approval' : s.phase}
          </span>
        </li>
      ))}
    </ol>
  );
}
