'use client';
// One volume in detail (a side panel): its attachments with what could release them and
// whether a detach would be safe, its users, its waiters, the recently deleted pods that used
// it, the writers the ground truth sees, and the events that tell its story.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { type ReactNode, useEffect, useRef } from 'react';
import { formatClock } from '@/lib/console/ui/format';
import { podHref } from '../map/NodePanel';
import type { Attachment, VolumeDetailData } from './api';
import { useVolumesTRPC } from './api';
import { NodeBadge, RiskBadge } from './badges';
import { FenceNoteLine, type FenceNotes, fenceNotesByNode } from './fence';
import { type DetachHandler, DetachButton, ForceDetachText, LiveAge, WritersCell } from './cells';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="border-t border-line px-3 py-2">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">{title}</h3>
      {children}
    </section>
  );
}

const none = (what: string) => <p className="text-xs text-dim">{what}</p>;

export function VolumeDetail({
  cluster,
  pv,
  onClose,
  onDetach,
}: {
  cluster: string;
  pv: string;
  onClose: () => void;
  onDetach?: DetachHandler;
}) {
  const trpc = useVolumesTRPC();
  const q = useQuery({ ...trpc.volumes.get.queryOptions({ cluster, name: pv }), retry: 0 });
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus the heading when another volume opens
  useEffect(() => heading.current?.focus(), [pv]);
  return (
    <aside
      aria-label={`Volume ${pv}`}
      data-testid="volume-detail"
      className="flex w-[min(520px,45vw)] shrink-0 flex-col overflow-auto border-l border-line bg-panel"
    >
      <header className="flex items-start gap-2 px-3 py-2">
        <h2 ref={heading} tabIndex={-1} className="font-mono text-sm font-semibold outline-none">
          {pv}
        </h2>
        {q.data && <RiskBadge risk={q.data.row.risk} />}
        <button
          type="button"
          onClick={onClose}
          aria-label="Close volume detail"
          className="ml-auto text-dim hover:text-fg"
        >
          ✕
        </button>
      </header>
      {q.error && (
        <p role="alert" className="px-3 pb-2 text-sm text-crit">
          Cannot read {pv}: {q.error.message}
        </p>
      )}
      {!q.data && !q.error && <p className="px-3 pb-2 text-sm text-dim">Loading…</p>}
      {q.data && <DetailBody cluster={cluster} data={q.data} onDetach={onDetach} />}
    </aside>
  );
}

function DetailBody({
  cluster,
  data,
  onDetach,
}: {
  cluster: string;
  data: VolumeDetailData;
  onDetach?: DetachHandler;
}) {
  const { row } = data;
  const fences = fenceNotesByNode(data.fences);
  return (
    <>
      <p className="px-3 pb-2 text-sm">{row.explanation}</p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 px-3 pb-2 text-xs">
        <dt className="text-dim">claim</dt>
        <dd className="font-mono">{row.claim ? `${row.claim.namespace}/${row.claim.name}` : '—'}</dd>
        <dt className="text-dim">access</dt>
        <dd>{row.accessModes.join(', ') || '—'}</dd>
        <dt className="text-dim">class</dt>
        <dd>{row.storageClass ?? '—'}</dd>
      </dl>
      <Section title="Attachments">
        {row.attachments.length === 0
          ? none('Not attached to any node.')
          : row.attachments.map((a) => (
              <AttachmentItem key={a.name} pv={row.pv} a={a} onDetach={onDetach} fences={fences} />
            ))}
      </Section>
      <Section title="Used by">
        {row.users.length === 0
          ? none('No pod in the API uses it.')
          : row.users.map((u) => (
              <p key={u.uid} className="text-xs">
                <PodLink cluster={cluster} ns={u.namespace} name={u.name} /> on{' '}
                {u.node ? <NodeBadge node={u.node} health={u.nodeHealth} /> : '—'} {u.state}
              </p>
            ))}
      </Section>
      <Section title="Waiting for it">
        {row.waiters.length === 0
          ? none('No pod waits for it.')
          : row.waiters.map((w) => (
              <div key={w.uid} className="mb-1 text-xs">
                <PodLink cluster={cluster} ns={w.namespace} name={w.name} /> on{' '}
                {w.node ? <NodeBadge node={w.node} health={w.nodeHealth} /> : '—'} {w.reason} for{' '}
                <LiveAge since={w.since} />
                {w.sinceFrom === 'pod-created' && (
                  <span className="text-dim"> (since the pod was created)</span>
                )}
                {w.message && <p className="text-dim">{w.message}</p>}
              </div>
            ))}
      </Section>
      {data.departed.length > 0 && (
        <Section title="Recently deleted pods that used it">
          {data.departed.map((d) => (
            <p key={d.uid} className="text-xs">
              <span className="font-mono">
                {d.namespace}/{d.name}
              </span>{' '}
              left {d.node ?? 'no node'} at {formatClock(d.at)}
            </p>
          ))}
        </Section>
      )}
      {row.writers && (
        <Section title="Writers — ground truth (simulation only)">
          <WritersCell row={row} />
        </Section>
      )}
      <Section title="Events">
        <EventList events={data.events} />
      </Section>
    </>
  );
}

function AttachmentItem({
  pv,
  a,
  onDetach,
  fences,
}: {
  pv: string;
  a: Attachment;
  onDetach?: DetachHandler;
  fences: FenceNotes;
}) {
  const fence = fences.get(a.node);
  return (
    <div className="mb-2 text-xs">
      <p className="flex flex-wrap items-center gap-2">
        <NodeBadge node={a.node} health={a.nodeHealth} />
        <span>{a.detaching ? 'detaching' : a.attached ? 'attached' : 'attaching'}</span>
        <span className="font-mono text-dim">{a.name}</span>
      </p>
      {a.stuck && <p className="text-crit">{a.stuck}</p>}
      {fence && <FenceNoteLine note={fence} />}
      {a.attachError && <p className="text-crit">attach error: {a.attachError}</p>}
      {a.detachError && <p className="text-crit">detach error: {a.detachError}</p>}
      <p>
        Force detach: <ForceDetachText fd={a.forceDetach} />{' '}
        <span className="text-dim">— {a.forceDetach.text}</span>
      </p>
      <p className="mt-1 flex items-center gap-2">
        <DetachButton pv={pv} a={a} onDetach={onDetach} />
        <span className="text-dim">{a.detachHint.why}</span>
      </p>
    </div>
  );
}

function PodLink({ cluster, ns, name }: { cluster: string; ns: string; name: string }) {
  return (
    <Link href={podHref(cluster, { namespace: ns, name })} className="font-mono text-info hover:underline">
      {ns}/{name}
    </Link>
  );
}

function EventList({ events }: { events: VolumeDetailData['events'] }) {
  if (!events.length) return none('No events.');
  return (
    <ul className="text-xs">
      {events.map((e) => (
        <li key={e.uid} className="border-t border-line py-1">
          <p className="flex flex-wrap gap-x-2">
            <span className="font-mono">{formatClock(e.lastSeen)}</span>
            <span className={e.type === 'Warning' ? 'font-medium text-warn' : 'font-medium'}>{e.reason}</span>
            <span className="font-mono text-dim">
              {e.involved.kind?.toLowerCase()}/{e.involved.name}
            </span>
            <span className="tabular-nums text-dim">×{e.count}</span>
          </p>
          <p className="break-words">{e.message}</p>
        </li>
      ))}
    </ul>
  );
}
