'use client';
// The safe path, first in the guarded dialog when a fence is coming for the pod's node: "a2-1 is
// not fenced yet: FencePolicy demo will fence it in 8 s; wait for the fence, then force delete
// is safe" — the seconds counting down — and a line saying the dialog follows by itself.
import Link from 'next/link';
import { formatClock } from '@/lib/console/ui/format';
import { waitAdvice } from '@/lib/guard/waitWords';
import { useNow } from '../console/clock';
import type { Preview } from './api';

type Wait = NonNullable<Extract<Preview['verdict'], { safe: false }>['wait']>;

export function FenceWait({ wait, updatedAt }: { wait: Wait; updatedAt: number }) {
  const now = useNow(1000) || Date.now();
  return (
    <div data-testid="guarded-wait" className="rounded border border-info bg-info/10 p-2">
      <p className="font-semibold">Safe path: wait for the fence</p>
      {/* not a live region: the seconds tick, and a screen reader would read each one */}
      <p>{waitAdvice(wait, now)}.</p>
      <p className="mt-1 text-xs text-dim">
        This dialog follows the fence by itself (last read {formatClock(updatedAt)}): once the node is fenced
        it says Safe, and force delete needs no override.{' '}
        <Link href="/fencing" className="text-info underline">
          Open Fencing
        </Link>
      </p>
    </div>
  );
}

/** Ticking one box confirms a risk the guard lets a person acknowledge (see lib/guard/dialog). */
export function AcknowledgeBox({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="flex items-start gap-2">
      <input
        type="checkbox"
        data-testid="guarded-acknowledge"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        className="mt-0.5"
      />
      <span>I have read what can go wrong and want to go ahead</span>
    </label>
  );
}

/** The submit button's words: an override is "anyway", and "without waiting" when a fence is coming. */
export function submitWords(p: Preview): string {
  const v = p.verdict;
  const base = v.safe ? p.label : v.wait ? `${p.label} anyway, without waiting` : `${p.label} anyway`;
  return p.destructive ? `${base} (${p.countdownSeconds} s)` : base;
}
