'use client';
// The Leadership page: for every cluster Palisade runs controller loops on, the controller Lease
// (its holder, the epoch = leaseTransitions, acquire and renew times), this replica's identity
// and whether it leads, each loop's queue, the terms of the Lease (who led at which epoch) and
// the stale writes Palisade's webhook refused, per epoch and so per replica. Re-read every 2 s.
import { useQueries } from '@tanstack/react-query';
import { formatAge, formatClock } from '@/lib/console/ui/format';
import type { HistorySource } from '@/lib/leader/history';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { type ElectedState, type LeadershipState, useLeadershipTRPC } from './api';

const REFETCH_MS = 2_000;

const SOURCE_LABEL: Record<HistorySource, string> = {
  event: 'Event',
  lease: 'the Lease',
  seen: 'seen by this replica',
};

export function LeadershipPage() {
  const { clusters, cluster: selected } = useCluster();
  const trpc = useLeadershipTRPC();
  const ids = clusters?.map((c) => c.id) ?? [];
  const results = useQueries({
    queries: ids.map((id) => ({
      ...trpc.leadership.state.queryOptions({ cluster: id }),
      refetchInterval: REFETCH_MS,
    })),
  });
  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="leadership-page">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Leadership</h1>
        <span className="text-xs text-dim">
          One controller Lease per cluster: only its holder runs the loops, and every write it makes carries
          its epoch (fieldManager <code className="font-mono">palisade-leader-e&lt;epoch&gt;</code>
          ), so the webhook refuses a deposed leader's writes.
        </span>
        <span className="ml-auto text-xs text-dim">re-read every {REFETCH_MS / 1000}s</span>
      </div>
      <div className="flex min-h-0 flex-1 flex-col gap-3 overflow-auto p-3">
        {ids.map((id, i) => {
          const q = results[i];
          return (
            <ClusterLeadership
              key={id}
              cluster={id}
              selected={id === selected}
              data={q?.data as LeadershipState | undefined}
              error={q?.error?.message}
              fetchedAt={q?.dataUpdatedAt ?? 0}
            />
          );
        })}
        {ids.length === 0 && (
          <p role="status" className="p-6 text-center text-sm text-dim">
            {clusters ? 'No cluster.' : 'Loading clusters…'}
          </p>
        )}
      </div>
    </div>
  );
}

function ClusterLeadership({
  cluster,
  selected,
  data,
  error,
  fetchedAt,
}: {
  cluster: string;
  selected: boolean;
  data: LeadershipState | undefined;
  error: string | undefined;
  fetchedAt: number;
}) {
  const head = (
    <h2 className="font-semibold">
      {cluster}
      {selected && <span className="ml-2 text-xs font-normal text-dim">(selected)</span>}
    </h2>
  );
  if (!data?.elected)
    return (
      <section
        aria-label={`Leadership on ${cluster}`}
        data-testid={`leadership-${cluster}`}
        className="flex flex-wrap items-baseline gap-x-3 rounded border border-line bg-panel px-3 py-2"
      >
        {head}
        {error ? (
          <p role="alert" className="text-sm text-crit" title={error}>
            Cannot read the leadership: {error}
          </p>
        ) : (
          <p className="text-sm text-dim">{data ? data.reason : 'Loading…'}</p>
        )}
      </section>
    );
  return <Elected head={head} data={data} error={error} fetchedAt={fetchedAt} />;
}

function Elected({
  head,
  data,
  error,
  fetchedAt,
}: {
  head: React.ReactNode;
  data: ElectedState;
  error: string | undefined;
  fetchedAt: number;
}) {
  // ages on the server's clock: its `now` when answered, plus what passed here since
  const local = useNow(1000);
  const now = local ? data.now + (local - fetchedAt) : data.now;
  const lease = data.leaseRead;
  const holder = lease.state === 'read' ? lease.holder : data.holder;
  const epoch = lease.state === 'read' ? lease.leaseTransitions : data.leaseTransitions;
  const ref = `${data.leaseRef.namespace}/${data.leaseRef.name}`;
  const status = data.leading
    ? { text: `this replica leads (epoch ${data.epoch})`, tone: 'border-ok/40 bg-ok/15 text-ok' }
    : holder
      ? { text: 'this replica follows', tone: 'border-info/40 bg-info/15 text-info' }
      : { text: 'no leader', tone: 'border-warn/40 bg-warn/15 text-warn' };
  return (
    <section
      aria-label={`Leadership on ${data.cluster}`}
      data-testid={`leadership-${data.cluster}`}
      className={`rounded border bg-panel p-3 ${data.leading ? 'border-ok/50' : holder ? 'border-line' : 'border-warn/60'}`}
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        {head}
        <span className={`rounded border px-1.5 py-0.5 text-xs font-medium ${status.tone}`}>
          {status.text}
        </span>
        {error && (
          <span role="alert" className="text-xs text-crit" title={error}>
            last re-read failed: {error}
          </span>
        )}
      </header>
      <div className="mt-2 grid gap-3 lg:grid-cols-[minmax(0,5fr)_minmax(0,4fr)]">
        <Card title="Controller Lease">
          <dl
            className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm"
            aria-label={`Controller Lease of ${data.cluster}`}
          >
            <Fact term="Lease">
              <span className="font-mono">{ref}</span>
            </Fact>
            {lease.state === 'absent' && (
              <Fact term="State">
                <span className="text-warn">not created yet: nobody has led on this cluster</span>
              </Fact>
            )}
            {lease.state === 'error' && (
              <Fact term="State">
                <span className="text-crit">{lease.error}</span>
              </Fact>
            )}
            <Fact term="Holder" testId="lease-holder">
              {holder ? (
                <>
                  <span className="font-mono break-all">{holder}</span>
                  {holder === data.identity && <ThisReplica />}
                </>
              ) : (
                <span className="text-warn">nobody (the Lease is free)</span>
              )}
            </Fact>
            <Fact term="Epoch" testId="lease-epoch">
              {epoch === undefined ? (
                '—'
              ) : (
                <>
                  <span className="font-mono font-semibold tabular-nums">{epoch}</span>{' '}
                  <span className="text-dim">(leaseTransitions)</span>
                </>
              )}
            </Fact>
            {lease.state === 'read' && (
              <>
                <Fact term="Acquired">
                  <Time iso={lease.acquireTime} now={now} />
                </Fact>
                <Fact term="Renewed">
                  <Time iso={lease.renewTime} now={now} />
                  {lease.leaseDurationSeconds !== undefined && (
                    <span className="text-dim">
                      {' '}
                      · held for {lease.leaseDurationSeconds}s after each renewal
                    </span>
                  )}
                </Fact>
              </>
            )}
            <Fact term="This replica" testId="own-identity">
              <span className="font-mono break-all">{data.identity}</span>
            </Fact>
            <Fact term="Leads" testId="own-leads">
              {data.leading ? (
                <span className="text-ok">
                  yes, epoch {data.epoch}; renewed by this replica <Time iso={data.lastRenewTime} now={now} />
                </span>
              ) : (
                <span>
                  no{holder ? ' — it follows and only watches' : ' — it campaigns every retry period'}
                </span>
              )}
            </Fact>
            <Fact term="Timing">
              <span className="text-dim">
                lease {data.leaseDurationSeconds}s · renew deadline {data.renewDeadlineMs / 1000}s · retry{' '}
                {data.retryPeriodMs / 1000}s
                {data.lastObservedTime && (
                  <>
                    {' '}
                    · last read <Time iso={data.lastObservedTime} now={now} />
                  </>
                )}
              </span>
            </Fact>
            {data.lastError && (
              <Fact term="Error">
                <span className="text-crit">{data.lastError}</span>
              </Fact>
            )}
          </dl>
        </Card>
        <Card title="Loops">
          <Loops data={data} />
        </Card>
      </div>
      <div className="mt-3 grid gap-3 lg:grid-cols-[minmax(0,5fr)_minmax(0,4fr)]">
        <Card title="Leader transitions">
          <Transitions data={data} now={now} />
        </Card>
        <Card title="Refused stale writes">
          <StaleWrites data={data} now={now} />
        </Card>
      </div>
      {data.history.unreadable.length > 0 && (
        <div className="mt-2 rounded border border-warn/40 bg-warn/10 px-2 py-1 text-xs">
          <p className="font-medium text-warn">Events on {ref} this page cannot read:</p>
          <ul className="list-disc pl-5">
            {data.history.unreadable.map((u) => (
              <li key={u.event}>
                {u.reason} <span className="font-mono">{u.event}</span>: {u.why}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-label={title} className="min-w-0 rounded border border-line bg-panel-2/40 p-2">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">{title}</h3>
      {children}
    </section>
  );
}

function Fact({ term, testId, children }: { term: string; testId?: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="text-dim">{term}</dt>
      <dd className="min-w-0" data-testid={testId}>
        {children}
      </dd>
    </>
  );
}

function ThisReplica() {
  return (
    <span className="ml-2 rounded border border-info/40 bg-info/15 px-1 py-px text-xs font-medium text-info">
      this replica
    </span>
  );
}

function Time({ iso, now }: { iso: string | undefined; now: number }) {
  if (!iso) return <span className="text-dim">—</span>;
  const at = Date.parse(iso);
  return (
    <span title={iso}>
      <span className="font-mono">{formatClock(at)}</span>{' '}
      <span className="text-dim">({formatAge(now - at)} ago)</span>
    </span>
  );
}

function Loops({ data }: { data: ElectedState }) {
  if (data.loops.length === 0) return <p className="text-xs text-dim">No loop on this cluster.</p>;
  return (
    <table className="w-full text-xs" aria-label={`Loops on ${data.cluster}`}>
      <thead className="text-left text-dim">
        <tr>
          <th className="py-0.5 pr-2 font-normal">Loop</th>
          <th className="pr-2 font-normal">State</th>
          <th className="pr-2 text-right font-normal">Queue</th>
          <th className="pr-2 text-right font-normal">Delayed</th>
          <th className="font-normal">Waiting for</th>
        </tr>
      </thead>
      <tbody>
        {data.loops.map((l) => (
          <tr key={l.name} className="border-t border-line align-top" data-testid={`loop-${l.name}`}>
            <td className="py-1 pr-2 font-mono">{l.name}</td>
            <td className={`py-1 pr-2 ${l.running ? 'text-ok' : 'text-dim'}`}>
              {l.running ? 'running' : data.leading ? 'starting' : 'stopped (follower)'}
            </td>
            <td className="py-1 pr-2 text-right tabular-nums">{l.depth}</td>
            <td className="py-1 pr-2 text-right tabular-nums">{l.delayed}</td>
            <td className="py-1 text-dim">
              {Object.entries(l.waits)
                .map(([reason, n]) => `${reason} ×${n}`)
                .join(', ') || '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Transitions({ data, now }: { data: ElectedState; now: number }) {
  const terms = data.history.terms;
  return (
    <>
      {terms.length === 0 ? (
        <p className="text-xs text-dim">No transition known yet.</p>
      ) : (
        <table className="w-full text-xs" aria-label={`Leader transitions on ${data.cluster}`}>
          <thead className="text-left text-dim">
            <tr>
              <th className="py-0.5 pr-2 text-right font-normal">Epoch</th>
              <th className="pr-2 font-normal">Holder</th>
              <th className="pr-2 font-normal">When</th>
              <th className="font-normal">From</th>
            </tr>
          </thead>
          <tbody>
            {terms.map((t) => (
              <tr
                key={`${t.epoch}-${t.holder}`}
                className="border-t border-line align-top"
                data-testid={`term-${t.epoch}`}
              >
                <td className="py-1 pr-2 text-right font-mono tabular-nums">{t.epoch}</td>
                <td className="py-1 pr-2">
                  {t.holder ? (
                    <>
                      <span className="font-mono break-all">{t.holder}</span>
                      {t.holder === data.identity && <ThisReplica />}
                    </>
                  ) : (
                    <span className="text-dim">released (no holder)</span>
                  )}
                </td>
                <td className="py-1 pr-2 whitespace-nowrap">
                  <Time iso={t.at} now={now} />
                </td>
                <td className="py-1 text-dim">{t.sources.map((s) => SOURCE_LABEL[s]).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <EventsNote data={data} />
    </>
  );
}

function EventsNote({ data }: { data: ElectedState }) {
  const e = data.events;
  if (e.state === 'read')
    return (
      <p className="mt-1 text-xs text-dim">
        From {e.count} Event{e.count === 1 ? '' : 's'} on the Lease
        {e.truncated ? ' (the oldest not read: too many)' : ''}, the Lease itself and what this replica saw.
      </p>
    );
  if (e.state === 'forbidden')
    return (
      <p className="mt-1 text-xs text-dim" title={e.reason}>
        From the Lease and what this replica saw only: the Events are not shown.
      </p>
    );
  return <p className="mt-1 text-xs text-crit">{e.error}</p>;
}

function StaleWrites({ data, now }: { data: ElectedState; now: number }) {
  const e = data.events;
  if (e.state === 'forbidden')
    return (
      <p className="text-xs text-dim" data-testid="forbidden-reason" title={e.reason}>
        Not allowed: {e.reason}
      </p>
    );
  if (e.state === 'error') return <p className="text-xs text-crit">{e.error}</p>;
  const stale = data.history.stale;
  if (stale.length === 0)
    return <p className="text-xs text-dim">None: no write of a deposed leader has been refused.</p>;
  return (
    <>
      <p className="mb-1 text-xs">
        <span className="font-semibold text-warn">{data.history.staleTotal}</span> refused write
        {data.history.staleTotal === 1 ? '' : 's'} recorded, each by the leader of an older epoch.{' '}
        <span className="text-dim">
          A burst is recorded once per stale epoch and replica every few seconds; the metric{' '}
          <code className="font-mono">palisade_leader_stale_writes_refused_total</code> counts every one.
        </span>
      </p>
      <table className="w-full text-xs" aria-label={`Refused stale writes on ${data.cluster}`}>
        <thead className="text-left text-dim">
          <tr>
            <th className="py-0.5 pr-2 text-right font-normal">Epoch</th>
            <th className="pr-2 font-normal">Replica that led it</th>
            <th className="pr-2 text-right font-normal">Recorded</th>
            <th className="font-normal">Last</th>
          </tr>
        </thead>
        <tbody>
          {stale.map((s) => (
            <tr
              key={s.epoch ?? 'unknown'}
              className="border-t border-line align-top"
              data-testid={`stale-${s.epoch ?? 'unknown'}`}
            >
              <td className="py-1 pr-2 text-right font-mono tabular-nums">{s.epoch ?? '?'}</td>
              <td className="py-1 pr-2 whitespace-nowrap">
                {s.holders.length === 0 ? (
                  <span className="text-dim">{s.epoch === undefined ? 'epoch unknown' : 'not known'}</span>
                ) : (
                  s.holders.map((h, i) => (
                    <span key={h} className={s.holders.length > 1 ? 'text-crit' : undefined}>
                      {i > 0 && ' or '}
                      <span className="font-mono">{h}</span>
                      {h === data.identity && <ThisReplica />}
                    </span>
                  ))
                )}
              </td>
              <td className="py-1 pr-2 text-right font-semibold tabular-nums text-warn">{s.count}</td>
              <td className="py-1">
                <Time iso={s.lastAt} now={now} />
                {s.refusedBy.length > 0 && (
                  <span className="block text-dim">
                    refused by{' '}
                    {s.refusedBy.map((r, i) => (
                      <span key={r}>
                        {i > 0 && ', '}
                        <span className="font-mono">{r}</span>
                        {r === data.identity && <ThisReplica />}
                      </span>
                    ))}
                  </span>
                )}
                <span className="block break-words text-dim">{s.lastMessage}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
