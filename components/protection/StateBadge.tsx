import { type ProtectorState, STATE_LABEL } from '@/lib/protection/state';

export const STATE_CLASS: Record<ProtectorState, string> = {
  healthy: 'bg-ok/15 text-ok border-ok/40',
  'at-floor': 'bg-warn/15 text-warn border-warn/40',
  blocking: 'bg-crit/15 text-crit border-crit/40',
  dangling: 'bg-oos/15 text-oos border-oos/40',
};

export function StateBadge({ state }: { state: ProtectorState }) {
  return (
    <span className={`rounded border px-1.5 py-0.5 text-xs font-medium ${STATE_CLASS[state]}`}>
      {STATE_LABEL[state]}
    </span>
  );
}
