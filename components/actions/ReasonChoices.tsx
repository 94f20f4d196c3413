'use client';
// One-click reasons above the reason field (lib/guard/dialog REASON_CHOICES): inside a warning
// window there is no time to compose a sentence. Picking one fills the field, which stays
// editable; the pressed state says which one is in it.
import { REASON_CHOICES } from '@/lib/guard/dialog';
import type { GuardedAction } from '@/lib/guard/actions';

export function ReasonChoices(p: { action: GuardedAction; reason: string; setReason: (s: string) => void }) {
  const choices = REASON_CHOICES[p.action];
  if (!choices?.length) return null;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of buttons, not a form group
    <div
      role="group"
      aria-label="Pick a reason"
      className="flex flex-wrap gap-1"
      data-testid="reason-choices"
    >
      {choices.map((c) => (
        <button
          key={c}
          type="button"
          aria-pressed={p.reason === c}
          onClick={() => p.setReason(c)}
          className="rounded border border-line bg-panel-2 px-1.5 py-0.5 text-left text-xs hover:border-info aria-pressed:border-info aria-pressed:bg-info/15"
        >
          {c}
        </button>
      ))}
    </div>
  );
}
