'use client';
// The timeline's filters: an absolute window (ISO times, UTC), kinds and text. Applying them
// rewrites the URL, which is the shareable link.
import { useState } from 'react';
import type { TimelineView } from '@/lib/history/link';
import { HISTORY_KINDS, type HistoryKind } from '@/lib/history/types';
import { KIND_LABEL } from './labels';

const INPUT = 'rounded border border-line bg-panel-2 px-1.5 py-0.5 text-xs';

const LAST = [
  { label: 'Last 15 min', ms: 15 * 60_000 },
  { label: 'Last hour', ms: 3_600_000 },
  { label: 'Last 24 h', ms: 86_400_000 },
];

export function TimelineFilters({
  view,
  onApply,
}: {
  view: TimelineView;
  onApply: (v: TimelineView) => void;
}) {
  const [draft, setDraft] = useState(view);
  const toggle = (k: HistoryKind) =>
    setDraft((d) => ({
      ...d,
      kinds: d.kinds.includes(k) ? d.kinds.filter((x) => x !== k) : [...d.kinds, k],
    }));
  const last = (ms: number) => {
    const to = new Date();
    onApply({ ...draft, from: new Date(to.getTime() - ms).toISOString(), to: to.toISOString() });
  };
  return (
    <form
      aria-label="Timeline filters"
      className="flex flex-col gap-2 text-xs"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          From (UTC)
          <input
            className={`${INPUT} w-56 font-mono`}
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </label>
        <label className="flex items-center gap-1">
          To (UTC)
          <input
            className={`${INPUT} w-56 font-mono`}
            value={draft.to}
            onChange={(e) => setDraft({ ...draft, to: e.target.value })}
          />
        </label>
        {LAST.map((l) => (
          <button key={l.label} type="button" className={INPUT} onClick={() => last(l.ms)}>
            {l.label}
          </button>
        ))}
        <input
          type="search"
          aria-label="Search the timeline"
          placeholder="node, pod, person, reason…"
          className={`${INPUT} w-48`}
          value={draft.q}
          onChange={(e) => setDraft({ ...draft, q: e.target.value })}
        />
        <button type="submit" className={`${INPUT} font-semibold`}>
          Apply
        </button>
      </div>
      <fieldset className="flex flex-wrap items-center gap-2">
        <legend className="sr-only">Kinds (none checked: every kind)</legend>
        <span className="text-dim">Kinds:</span>
        {HISTORY_KINDS.map((k) => (
          <label key={k} className="flex items-center gap-1">
            <input type="checkbox" checked={draft.kinds.includes(k)} onChange={() => toggle(k)} />
            {KIND_LABEL[k]}
          </label>
        ))}
      </fieldset>
    </form>
  );
}
