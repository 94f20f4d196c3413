'use client';
// The switch for fence notifications, where the commander looks: the incident view's header and
// the user menu. The browser asks for the permission on the first "on".
import { useState } from 'react';
import { NOTIFY_WORDS, setFenceNotify, useFenceNotify } from './fenceNotify';

export function NotifyToggle({ className = '' }: { className?: string }) {
  const state = useFenceNotify();
  const [asking, setAsking] = useState(false);
  const on = state === 'on';
  const toggle = async () => {
    setAsking(true);
    try {
      await setFenceNotify(!on);
    } finally {
      setAsking(false);
    }
  };
  return (
    <span className={`flex flex-wrap items-center gap-2 text-xs ${className}`} data-testid="notify-toggle">
      <button
        type="button"
        aria-pressed={on}
        disabled={asking || state === 'unavailable' || state === 'blocked'}
        onClick={() => void toggle()}
        className="rounded border border-line bg-panel-2 px-2 py-0.5 font-semibold hover:border-info disabled:opacity-50"
      >
        {on ? 'Stop fence notifications' : 'Notify me of fences'}
      </button>
      <span className="text-dim" data-testid="notify-state">
        Browser notifications: {NOTIFY_WORDS[state]}
      </span>
    </span>
  );
}
