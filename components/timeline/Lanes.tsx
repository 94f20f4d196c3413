'use client';
// The timeline's lanes (issue 25, item 6): the window on a time axis, a lane per node, fence,
// workload and person, and a scrubber — drag it (or click a lane) and the replay below shows the
// nodes as they were at that moment. Each lane also says what it shows in words (a screen reader
// reads the list; a sighted reader hovers a span), never by colour alone.
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatClock } from '@/lib/console/ui/format';
import type { IncidentUpdate } from '@/lib/incident/record';
import {
  axisFraction,
  type Lane,
  LANE_GROUPS,
  type LaneGroup,
  lanesOf,
  type Span,
} from '@/lib/history/lanes';
import type { HistoryEntry } from '@/lib/history/types';

const GROUP_LABEL: Record<LaneGroup, string> = {
  nodes: 'Nodes',
  fences: 'Fences',
  workloads: 'Workloads',
  people: 'People',
};

const STATE_CLASS: Record<string, string> = {
  Ready: 'bg-ok/25',
  AtDesired: 'bg-ok/25',
  Recovered: 'bg-ok/25',
  NotReady: 'bg-crit/30',
  Unknown: 'bg-warn/35',
  BelowDesired: 'bg-warn/35',
  Detected: 'bg-warn/35',
  AwaitingApproval: 'bg-warn/35',
  Fencing: 'bg-crit/30',
  Failed: 'bg-crit/30',
  Fenced: 'bg-info/30',
  Releasing: 'bg-info/30',
  Released: 'bg-info/30',
  Cancelled: 'bg-muted/30',
};

/** how long after the last drag the replay is asked for (a drag sends one query, not fifty) */
const SCRUB_SETTLE_MS = 300;

const pct = (f: number) => `${(f * 100).toFixed(3)}%`;

function spanWords(s: Span): string {
  return `${s.state} ${formatClock(s.from)}–${formatClock(s.to)}`;
}

function laneWords(l: Lane): string {
  const spans = l.spans.map(spanWords);
  const marks = l.marks.map((m) => `${m.code} at ${formatClock(m.at)}`);
  return [...spans, ...marks].join('; ');
}

export function Lanes(p: {
  entries: HistoryEntry[];
  from: string;
  to: string;
  updates?: readonly IncidentUpdate[];
  at?: string;
  onScrub: (at: string) => void;
}) {
  const w = useMemo(() => ({ from: Date.parse(p.from), to: Date.parse(p.to) }), [p.from, p.to]);
  const lanes = useMemo(() => lanesOf(p.entries, w, p.updates), [p.entries, w, p.updates]);
  const [t, setT] = useState<number | undefined>(p.at ? Date.parse(p.at) : undefined);
  useEffect(() => setT(p.at ? Date.parse(p.at) : undefined), [p.at]);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(settle.current), []);
  const scrub = (ms: number, now = false) => {
    setT(ms);
    clearTimeout(settle.current);
    const send = () => p.onScrub(new Date(ms).toISOString());
    if (now) send();
    else settle.current = setTimeout(send, SCRUB_SETTLE_MS);
  };
  if (!lanes.length) return null;
  const cursor = t === undefined ? undefined : axisFraction(t, w);
  const onTrack = (e: React.MouseEvent<HTMLDivElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    scrub(Math.round(w.from + ((e.clientX - box.left) / box.width) * (w.to - w.from)), true);
  };
  return (
    <section
      aria-label="Lanes"
      data-testid="timeline-lanes"
      className="rounded border border-line p-2 text-xs"
    >
      <div className="mb-1 flex items-center gap-2">
        <h2 className="font-semibold">Lanes</h2>
        <label className="flex flex-1 items-center gap-2">
          <span className="whitespace-nowrap">Replay at {t === undefined ? '—' : formatClock(t)}</span>
          <input
            type="range"
            aria-label="Replay time"
            data-testid="timeline-scrubber"
            className="flex-1"
            min={w.from}
            max={w.to}
            step={1000}
            value={t ?? w.to}
            aria-valuetext={t === undefined ? 'not replaying' : formatClock(t)}
            onChange={(e) => scrub(Number(e.target.value))}
          />
        </label>
      </div>
      <div className="grid grid-cols-[11rem_1fr] gap-x-2 gap-y-0.5">
        <span />
        <div className="flex justify-between font-mono text-dim" aria-hidden="true">
          <span>{formatClock(w.from)}</span>
          <span>{formatClock(w.to)}</span>
        </div>
        {LANE_GROUPS.map((g) => (
          <LaneGroupRows
            key={g}
            group={g}
            lanes={lanes.filter((l) => l.group === g)}
            w={w}
            cursor={cursor}
            onTrack={onTrack}
          />
        ))}
      </div>
      <LaterNotes updates={p.updates ?? []} to={w.to} />
    </section>
  );
}

/** Notes written after the window (a postmortem's, days later): listed, not drawn past the axis. */
function LaterNotes({ updates, to }: { updates: readonly IncidentUpdate[]; to: number }) {
  const later = updates.filter((u) => Date.parse(u.at) > to);
  if (!later.length) return null;
  return (
    <ul aria-label="Notes added after this window" className="mt-1 flex flex-col gap-0.5">
      {later.map((u) => (
        <li key={`${u.at}/${u.by}/${u.kind}`}>
          <span className="font-mono text-dim">{u.at.replace('T', ' ')}</span> {u.kind} · {u.by}: {u.text}
        </li>
      ))}
    </ul>
  );
}

function LaneGroupRows(p: {
  group: LaneGroup;
  lanes: Lane[];
  w: { from: number; to: number };
  cursor?: number;
  onTrack: (e: React.MouseEvent<HTMLDivElement>) => void;
}) {
  if (!p.lanes.length) return null;
  return (
    <>
      <h3 className="col-span-2 mt-1 font-semibold text-dim">{GROUP_LABEL[p.group]}</h3>
      {p.lanes.map((l) => (
        <LaneRow key={`${l.group}/${l.key}`} lane={l} w={p.w} cursor={p.cursor} onTrack={p.onTrack} />
      ))}
    </>
  );
}

function LaneRow(p: {
  lane: Lane;
  w: { from: number; to: number };
  cursor?: number;
  onTrack: (e: React.MouseEvent<HTMLDivElement>) => void;
}) {
  const { lane: l, w } = p;
  return (
    <>
      <span className="truncate font-mono" title={l.key}>
        {l.key}
        <span className="sr-only">: {laneWords(l)}</span>
      </span>
      <div
        aria-hidden="true"
        data-testid={`lane-${l.group}-${l.key}`}
        className="relative h-5 cursor-crosshair rounded-sm bg-panel-2"
        onClick={p.onTrack}
      >
        {l.spans.map((s) => {
          const left = axisFraction(s.from, w);
          const width = axisFraction(s.to, w) - left;
          return (
            <span
              key={`${s.from}/${s.state}`}
              data-state={s.state}
              title={`${spanWords(s)}: ${s.text}`}
              className={`absolute top-0 h-full overflow-hidden whitespace-nowrap border-l border-line px-0.5 text-[10px] leading-5 ${STATE_CLASS[s.state] ?? 'bg-muted/20'}`}
              style={{ left: pct(left), width: pct(width) }}
            >
              {width > 0.08 ? s.state : ''}
            </span>
          );
        })}
        {l.marks.map((m) => (
          <span
            key={m.id}
            title={`${m.code} at ${formatClock(m.at)}: ${m.text}`}
            className="absolute top-0 h-full w-1 -translate-x-1/2 rounded-sm bg-fg"
            style={{ left: pct(axisFraction(m.at, w)) }}
          />
        ))}
        {p.cursor !== undefined && (
          <span className="absolute top-0 h-full w-0.5 bg-info" style={{ left: pct(p.cursor) }} />
        )}
      </div>
    </>
  );
}
