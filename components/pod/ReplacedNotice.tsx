'use client';
// A pod page follows a name; after a fence or a force delete a StatefulSet creates a new pod of
// that name (new uid, often another node). The page says so, links the old pod's history on the
// timeline, and keeps the old pod's events in a card of their own, not mixed with the new one's.
import Link from 'next/link';
import { formatClock } from '@/lib/console/ui/format';
import type { PodView } from '@/lib/console/protocol';
import { EventsTable } from '../console/EventsTable';
import { eventsOf } from './normalize';

export interface Replaced {
  uid: string;
  node?: string;
  until: number;
  events: unknown;
}

/** The server's `replaced`, read loosely like the rest of the pod detail. */
export function replacedOf(data: unknown): Replaced | undefined {
  const r = (data as { replaced?: Partial<Replaced> } | undefined)?.replaced;
  if (!r || typeof r.uid !== 'string' || typeof r.until !== 'number') return undefined;
  return {
    uid: r.uid,
    node: typeof r.node === 'string' ? r.node : undefined,
    until: r.until,
    events: r.events,
  };
}

export const timelineHref = (cluster: string, namespace: string, name: string) =>
  `/timeline?${new URLSearchParams({ cluster, q: `${namespace}/${name}` })}`;

export function ReplacedNotice(props: { cluster: string; pod: PodView; replaced: Replaced }) {
  const { pod, replaced: r } = props;
  return (
    <div role="note" data-testid="pod-replaced" className="rounded border border-info bg-info/10 p-2 text-sm">
      <p>
        This is a new pod (uid <span className="font-mono">{pod.uid}</span>
        {pod.node ? (
          <>
            , on node <span className="font-mono">{pod.node}</span>
          </>
        ) : (
          ', not scheduled yet'
        )}
        ) replacing the one that ran on <span className="font-mono">{r.node ?? 'no node'}</span> until{' '}
        <span className="font-mono">{formatClock(r.until)}</span>.
      </p>
      <p className="mt-1 text-xs">
        <Link href={timelineHref(props.cluster, pod.namespace, pod.name)} className="text-info underline">
          The old pod's history on the timeline
        </Link>
        <span className="text-dim"> · its events are below, apart from this pod's</span>
      </p>
    </div>
  );
}

export function ReplacedEvents({ replaced: r }: { replaced: Replaced }) {
  const events = eventsOf(r.events);
  return (
    <section
      aria-label="Events of the replaced pod"
      data-testid="pod-replaced-events"
      className="rounded border border-line bg-panel p-3"
    >
      <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-dim">
        Events of the replaced pod (uid <span className="font-mono normal-case">{r.uid}</span>,{' '}
        {events.length})
      </h2>
      <EventsTable events={events} empty="no events kept for it" />
    </section>
  );
}
