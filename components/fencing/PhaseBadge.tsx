import { PHASE_TONE, phaseLabel, type Tone } from '@/lib/fencing/view';
import type { Phase } from '@/lib/fencing/types';

export const TONE_CLASS: Record<Tone, string> = {
  bad: 'bg-crit/15 text-crit border-crit/40',
  warn: 'bg-warn/15 text-warn border-warn/40',
  info: 'bg-info/15 text-info border-info/40',
  ok: 'bg-ok/15 text-ok border-ok/40',
  muted: 'bg-muted/15 text-muted border-muted/40',
};

export function PhaseBadge({ phase, title }: { phase: Phase; title?: string }) {
  return (
    <span
      data-testid="fence-phase"
      title={title}
      className={`whitespace-nowrap rounded border px-1.5 py-0.5 text-xs font-medium ${TONE_CLASS[PHASE_TONE[phase]]}`}
    >
      {phaseLabel(phase)}
    </span>
  );
}
