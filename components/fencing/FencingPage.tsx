'use client';
// The Fencing page: the fences coming (nodes a policy will fence, counting down), one card per
// NodeFence — phase, the warning window counting down, step-by-step progress, the policy and
// agent, every attempt with its verification and agent output, what the release let go of, what
// still waits on the node, and approve / cancel / pause where they apply — plus the FencePolicies
// in force, each with Pause or Resume. Live through the fencing room; nothing polls.
import Link from 'next/link';
import { releasedText } from '@/lib/fencing/view';
import { CancelFenceButton, FenceNodeButton, PausePolicyButton } from '../actions/GuardedActionButtons';
import { FenceAllHeldButton } from './FenceAllHeld';
import { useCluster } from '../console/cluster';
import { AgeCell } from '../lists/cells';
import { podHref } from '../map/NodePanel';
import { FenceActions } from './FenceActions';
import { FenceWarning } from './Warning';
import { type FenceRow, type FencingList, useFencing } from './live';
import { PhaseBadge } from './PhaseBadge';
import { Progress } from './Progress';

export function FencingPage() {
  const list = useFencing();
  const data = list.data;
  return (
    <div className="flex min-h-0 flex-1 flex-col overflow-auto" data-testid="fencing-page">
      <header className="flex items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Fencing</h1>
        {data?.enabled && <Counts fences={data.fences} />}
        {data?.enabled && data.leader && <Leader leader={data.leader} />}
      </header>
      {list.error && (
        <p role="alert" className="px-3 py-2 text-sm text-crit">
          Cannot read fencing: {list.error.message}
        </p>
      )}
      {data && !data.enabled && <p className="px-3 py-4 text-sm text-dim">{data.reason}</p>}
      {data?.enabled && (
        <>
          {data.held.length > 0 && <Held held={data.held} />}
          {data.upcoming.length > 0 && <Upcoming upcoming={data.upcoming} />}
          <section aria-label="Node fences" className="flex flex-col gap-2 p-3">
            {data.fences.length === 0 && data.upcoming.length === 0 && (
              <p className="text-sm text-dim">
                No node is being fenced. When a node a FencePolicy covers stays unhealthy long enough, its
                NodeFence appears here.
              </p>
            )}
            {data.fences.map((f) => (
              <FenceCard key={f.name} f={f} announced={data.upcoming.some((u) => u.node === f.node)} />
            ))}
          </section>
          <Policies policies={data.policies} />
        </>
      )}
      {!data && !list.error && <p className="px-3 py-4 text-sm text-dim">Loading…</p>}
    </div>
  );
}

/** Who acts on this cluster: every console watches, the leader of the controller Lease runs the loops (fencing among them). */
function Leader({ leader }: { leader: NonNullable<Extract<FencingList, { enabled: true }>['leader']> }) {
  const text = leader.leading
    ? `this console runs the controllers on this cluster, fencing among them (it holds the controller Lease, epoch ${leader.epoch ?? 0})`
    : leader.holder
      ? `another Palisade runs the controllers on this cluster, fencing among them (${leader.holder}); this console watches`
      : 'electing the console that runs the controllers on this cluster…';
  return (
    <span
      className={`ml-auto text-xs ${leader.leading || leader.holder ? 'text-dim' : 'text-warn'}`}
      data-testid="fencing-leader"
      title={`Lease ${leader.lease}; this console is ${leader.identity}${leader.lastError ? `; last error: ${leader.lastError}` : ''}`}
    >
      {text}
      {leader.lastError && <span className="text-crit"> · {leader.lastError}</span>}
    </span>
  );
}

function Held({ held }: { held: { node: string; why: string }[] }) {
  const { cluster, current } = useCluster();
  return (
    <section
      aria-label="Fencing held"
      data-testid="fencing-held"
      className="border-b border-warn/40 bg-warn/10 px-3 py-2 text-sm"
    >
      {/* fencing.list sends only the nodes the budget holds (those awaiting approval have their card) */}
      <p className="font-medium text-warn">
        {held.length} unhealthy node{held.length === 1 ? '' : 's'} not fenced yet: the fencing budget holds{' '}
        {held.length === 1 ? 'it' : 'them'}
      </p>
      <p className="flex flex-wrap items-center gap-2 text-xs text-dim">
        When many nodes look down at once the control plane may be the one cut off. Fence a node by hand once
        you know it is down.
        {cluster && (
          <FenceAllHeldButton cluster={cluster} held={held} disabled={current?.mode === 'read-only'} />
        )}
      </p>
      <ul className="text-xs">
        {held.map((h) => (
          <li
            key={h.node}
            data-testid={`held-${h.node}`}
            className="flex flex-wrap items-center gap-2 py-0.5"
          >
            <span>
              <span className="font-mono">{h.node}</span>: {h.why}
            </span>
            {cluster && (
              <FenceNodeButton cluster={cluster} node={h.node} disabled={current?.mode === 'read-only'} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

type UpcomingRow = Extract<FencingList, { enabled: true }>['upcoming'][number];

/** Nodes a policy will fence that have no NodeFence yet: when, and the policy's Pause. */
function Upcoming({ upcoming }: { upcoming: UpcomingRow[] }) {
  const { cluster, current } = useCluster();
  return (
    <section
      aria-label="Fences coming"
      data-testid="fencing-upcoming"
      className="border-b border-warn/40 bg-warn/10 px-3 py-2 text-sm"
    >
      <h2 className="font-medium text-warn">
        {upcoming.length} node{upcoming.length === 1 ? '' : 's'} will be fenced automatically
      </h2>
      <p className="text-xs text-dim">
        Each gets its NodeFence when it has been unhealthy for its policy's duration; the warning window then
        runs before any agent. Cancel one now, or pause the policy to hold them all.
      </p>
      <ul className="mt-1 flex flex-col gap-1 text-xs">
        {upcoming.map((u) => (
          <li key={u.node} data-testid={`upcoming-${u.node}`} className="flex flex-wrap items-center gap-2">
            <span className="font-mono font-semibold">{u.node}</span>
            <FenceWarning fenceAt={u.fenceAt} paused={u.paused} policy={u.policy} />
            <span className="text-dim">
              policy <span className="font-mono">{u.policy}</span>
            </span>
            {cluster && (
              <>
                <CancelFenceButton
                  cluster={cluster}
                  fence={u.node}
                  disabled={current?.mode === 'read-only'}
                />
                <PausePolicyButton
                  cluster={cluster}
                  policy={u.policy}
                  paused={u.paused}
                  disabled={current?.mode === 'read-only'}
                />
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Counts({ fences }: { fences: FenceRow[] }) {
  const count = (phases: string[]) => fences.filter((f) => phases.includes(f.status.phase)).length;
  // Released is not in progress: the fence is done and the node waits for a person (issue 25)
  const active = count(['Detected', 'AwaitingApproval', 'Fencing', 'Fenced', 'Releasing']);
  const released = count(['Released']);
  const failed = count(['Failed']);
  return (
    <span className="text-xs text-dim" data-testid="fencing-counts">
      {active} in progress
      {released ? <span className="text-warn"> · {released} released, waiting for repair</span> : null}
      {failed ? <span className="text-crit"> · {failed} failed</span> : null} · {fences.length} total
    </span>
  );
}

const TERMINAL: string[] = ['Recovered', 'Cancelled', 'Failed'];

/** `announced`: a fence of the node's next incident is announced (this one, if ended, is an earlier incident's) */
function FenceCard({ f, announced }: { f: FenceRow; announced: boolean }) {
  const s = f.status;
  return (
    <article
      className="rounded border border-line bg-panel p-3"
      data-testid={`fence-${f.node}`}
      aria-label={`NodeFence ${f.name}`}
    >
      <div className="flex flex-wrap items-center gap-3">
        <span className="font-mono font-semibold">{f.node}</span>
        <PhaseBadge phase={s.phase} />
        <Progress steps={f.progress} failed={s.phase === 'Failed'} />
        <span className="ml-auto text-xs text-dim">
          policy <span className="font-mono text-fg">{f.policy}</span>
          {f.agent ? ` · ${f.agent}` : ''} · detected{' '}
          <AgeCell since={s.detectedAt ? Date.parse(s.detectedAt) : undefined} suffix=" ago" />
        </span>
      </div>
      {s.phase === 'Detected' && (
        <p className="mt-1 text-sm">
          <FenceWarning fenceAt={f.fenceAt} paused={f.paused} policy={f.policy} phase={s.phase} />
        </p>
      )}
      {announced && TERMINAL.includes(s.phase) && (
        <p className="mt-1 text-sm font-medium" data-testid="fence-earlier-incident">
          An earlier incident's fence: {f.node} failed again, and its new fence is announced above.
        </p>
      )}
      {s.phase === 'Released' && (
        <p className="mt-1 text-sm font-medium text-warn" data-testid="fence-next-step">
          {releasedText(f.node, f.agentType)}
        </p>
      )}
      <p className="mt-1 text-sm" data-testid="fence-message">
        {s.message}
      </p>
      {f.spec.requestedBy ? (
        <p className="text-xs text-dim" data-testid="fence-requested-by">
          Fenced by hand: requested by {f.spec.requestedBy.by}
          {f.spec.requestedBy.reason ? `: ${f.spec.requestedBy.reason}` : ''}
        </p>
      ) : (
        f.spec.approvedBy && <p className="text-xs text-dim">Approved by {f.spec.approvedBy}</p>
      )}
      {f.spec.cancelRequested && (
        <p className="text-xs text-dim">
          Cancel requested by {f.spec.cancelRequested.by}
          {f.spec.cancelRequested.reason ? `: ${f.spec.cancelRequested.reason}` : ''}
        </p>
      )}
      <FenceActions f={f} />
      {s.attempts.length > 0 && <Attempts attempts={s.attempts} />}
      <ReleasedRecord released={f.released} />
      {!['Recovered', 'Cancelled'].includes(s.phase) && <Waiting waiting={f.waiting} />}
    </article>
  );
}

const RESULT_CLASS: Record<string, string> = {
  Succeeded: 'text-ok',
  Running: 'text-info',
  Failed: 'text-crit',
  TimedOut: 'text-crit',
  Interrupted: 'text-warn',
};

function Attempts({ attempts }: { attempts: FenceRow['status']['attempts'] }) {
  return (
    <table className="mt-2 w-full text-xs" aria-label="Agent attempts" data-testid="fence-attempts">
      <thead className="text-left text-dim">
        <tr>
          <th className="py-0.5 pr-2 font-normal">#</th>
          <th className="pr-2 font-normal">Agent</th>
          <th className="pr-2 font-normal">Verified by status query</th>
          <th className="pr-2 font-normal">Started</th>
          <th className="font-normal">Output</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr key={a.number} className="align-top">
            <td className="pr-2 tabular-nums">{a.number}</td>
            <td className={`pr-2 ${RESULT_CLASS[a.result] ?? ''}`}>
              {a.result}
              {a.exitCode != null ? ` (exit ${a.exitCode})` : ''}
            </td>
            <td
              className={`pr-2 ${a.verification ? (a.verification.confirmed ? 'text-ok' : 'text-crit') : 'text-dim'}`}
            >
              {a.verification ? `${a.verification.confirmed ? '✓' : '✗'} ${a.verification.state}` : '—'}
            </td>
            <td className="whitespace-nowrap pr-2 text-dim">
              <AgeCell since={Date.parse(a.startedAt)} suffix=" ago" />
            </td>
            <td>
              <pre className="max-h-24 overflow-auto whitespace-pre-wrap font-mono text-[11px] text-dim">
                {a.output || '—'}
              </pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the fence's release let go of, by name (kept in the NodeFence: Events expire in an hour). */
function ReleasedRecord({ released }: { released: FenceRow['released'] }) {
  const { cluster } = useCluster();
  if (released.pods.length + released.volumeAttachments.length === 0) return null;
  return (
    <div className="mt-2 text-xs" data-testid="fence-released">
      <h3 className="font-semibold">Released by this fence</h3>
      {released.pods.length > 0 && (
        <p>
          Pods force-deleted or evicted:{' '}
          {released.pods.map((p, i) => {
            const [namespace, name] = p.split('/');
            return (
              <span key={p}>
                {i > 0 && ', '}
                {cluster ? (
                  <Link
                    className="font-mono text-info hover:underline"
                    href={podHref(cluster, { namespace, name })}
                  >
                    {p}
                  </Link>
                ) : (
                  <span className="font-mono">{p}</span>
                )}
              </span>
            );
          })}
        </p>
      )}
      {released.volumeAttachments.length > 0 && (
        <p>
          Volume attachments detached:{' '}
          <span className="font-mono">{released.volumeAttachments.join(', ')}</span>
        </p>
      )}
    </div>
  );
}

/** What still waits on the node: its pods and the volumes attached to it, each linked. */
function Waiting({ waiting }: { waiting: FenceRow['waiting'] }) {
  const { cluster } = useCluster();
  const none = waiting.pods.length + waiting.volumes.length === 0;
  return (
    <div className="mt-2 text-xs" data-testid="fence-waiting">
      <h3 className="font-semibold">Waiting on the node</h3>
      {none && <p className="text-dim">no pods and no volume attachments remain on the node</p>}
      {waiting.pods.length > 0 && (
        <p>
          Pods:{' '}
          {waiting.pods.map((p, i) => (
            <span key={`${p.namespace}/${p.name}`}>
              {i > 0 && ', '}
              {cluster ? (
                <Link className="font-mono text-info hover:underline" href={podHref(cluster, p)}>
                  {p.namespace}/{p.name}
                </Link>
              ) : (
                <span className="font-mono">
                  {p.namespace}/{p.name}
                </span>
              )}{' '}
              <span className="text-dim">({p.state})</span>
            </span>
          ))}
        </p>
      )}
      {waiting.volumes.length > 0 && (
        <p>
          Volumes:{' '}
          {waiting.volumes.map((v, i) => (
            <span key={v.attachment}>
              {i > 0 && ', '}
              <Link
                className="font-mono text-info hover:underline"
                href={`/volumes${v.pv ? `?volume=${encodeURIComponent(v.pv)}` : ''}`}
              >
                {v.pv ?? v.attachment}
              </Link>
            </span>
          ))}
        </p>
      )}
    </div>
  );
}

function Policies({ policies }: { policies: Extract<FencingList, { enabled: true }>['policies'] }) {
  const { cluster, current } = useCluster();
  return (
    <section aria-label="Fence policies" className="border-t border-line p-3">
      <h2 className="mb-1 text-sm font-semibold">Fence policies</h2>
      {policies.length === 0 && (
        <p className="text-sm text-dim">
          No FencePolicy: Palisade fences nothing on this cluster (see deploy/crds/).
        </p>
      )}
      <ul className="flex flex-col gap-1 text-xs">
        {policies.map((p) => (
          <li key={p.name} data-testid={`policy-${p.name}`} className="flex flex-wrap items-center gap-x-2">
            <span className="font-mono font-semibold">{p.name}</span>
            {p.paused && (
              <span
                className="rounded border border-warn/40 bg-warn/15 px-1 font-medium text-warn"
                data-testid="policy-paused"
              >
                paused
                {p.pausedBy ? ` by ${p.pausedBy.by}${p.pausedBy.reason ? `: ${p.pausedBy.reason}` : ''}` : ''}
              </span>
            )}
            {p.error ? (
              <span className="text-crit">ignored: {p.error}</span>
            ) : (
              <span className="text-dim">
                {p.agent} · {p.approval} · release by {p.releaseStrategy} · unhealthy when{' '}
                {p.unhealthy?.join(' or ')} · {p.budget} ·{' '}
                {p.approval === 'Manual'
                  ? `no agent before ${p.warningWindow} after detection, and only once approved`
                  : p.warningWindow === '0s'
                    ? 'no warning window'
                    : `announced ${p.warningWindow} before the agent runs`}
              </span>
            )}
            {cluster && !p.error && (
              <PausePolicyButton
                cluster={cluster}
                policy={p.name}
                paused={p.paused}
                label={p.paused ? 'Resume…' : 'Pause…'}
                disabled={current?.mode === 'read-only'}
              />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
