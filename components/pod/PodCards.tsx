// The pod page's cards: what the pod is (status, conditions, containers, volume claims), each
// a section named by its title. PodDetail gathers the data; these only show it.
import type { PodView } from '@/lib/console/protocol';
import { formatAge, formatClock } from '@/lib/console/ui/format';
import { NODE_DOT_CLASS, NODE_STATE_LABEL, type nodeDisplayState } from '@/lib/console/ui/states';
import { type claimsOf, type conditionsOf, type containersOf, timeOf } from './normalize';

export function Card({
  title,
  children,
  className = '',
}: {
  title: string;
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <section aria-label={title} className={`rounded border border-line bg-panel p-3 ${className}`}>
      <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-dim">{title}</h2>
      {children}
    </section>
  );
}

export function StatusCard({
  pod,
  nodeState,
  now,
}: {
  pod: PodView;
  nodeState: ReturnType<typeof nodeDisplayState> | undefined;
  now: number;
}) {
  return (
    <Card title="Status">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt className="text-dim">Phase</dt>
        <dd>{pod.phase ?? '—'}</dd>
        <dt className="text-dim">Ready</dt>
        <dd className={pod.ready ? 'text-ok' : 'text-warn'}>{pod.ready ? 'yes' : 'no'}</dd>
        <dt className="text-dim">Node</dt>
        <dd className="flex items-center gap-1.5 font-mono">
          {pod.node ?? <span className="text-dim">not scheduled</span>}
          {nodeState && (
            <>
              <span
                className={`inline-block h-2 w-2 rounded-full ${NODE_DOT_CLASS[nodeState]}`}
                aria-hidden="true"
              />
              <span className="font-sans text-dim">{NODE_STATE_LABEL[nodeState]}</span>
            </>
          )}
        </dd>
        <dt className="text-dim">Owner</dt>
        <dd>{pod.owner ? `${pod.owner.kind}/${pod.owner.name}` : '—'}</dd>
        <dt className="text-dim">Pod IP</dt>
        <dd className="font-mono">{pod.podIP ?? '—'}</dd>
        <dt className="text-dim">Created</dt>
        <dd className="font-mono">
          {pod.createdAt ? `${formatClock(pod.createdAt)} (${formatAge(now - pod.createdAt)} ago)` : '—'}
        </dd>
        <dt className="text-dim">Grace period</dt>
        <dd className="font-mono">
          {pod.terminationGracePeriodSeconds !== undefined ? `${pod.terminationGracePeriodSeconds}s` : '—'}
          {pod.deletionGracePeriodSeconds !== undefined && ` (deletion: ${pod.deletionGracePeriodSeconds}s)`}
        </dd>
        <dt className="text-dim">UID</dt>
        <dd className="truncate font-mono text-xs text-dim">{pod.uid}</dd>
      </dl>
    </Card>
  );
}

export function ConditionsCard({
  conditions,
  loaded,
}: {
  conditions: ReturnType<typeof conditionsOf>;
  loaded: boolean;
}) {
  return (
    <Card title="Conditions">
      {conditions.length === 0 ? (
        <p className="text-xs text-dim">{loaded ? 'none' : 'loading…'}</p>
      ) : (
        <table className="w-full text-xs">
          <tbody>
            {conditions.map((c) => (
              <tr key={c.type} className="border-t border-line align-top">
                <td className="py-1 pr-2 font-medium">{c.type}</td>
                <td className={`py-1 pr-2 font-mono ${c.status === 'True' ? 'text-ok' : 'text-warn'}`}>
                  {c.status}
                </td>
                <td className="py-1 text-dim" title={c.message}>
                  {c.reason ?? ''}
                  {timeOf(c.time) ? ` · ${formatClock(timeOf(c.time))}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

export function ContainersCard({
  containers,
  loaded,
}: {
  containers: ReturnType<typeof containersOf>;
  loaded: boolean;
}) {
  return (
    <Card title="Containers">
      {containers.length === 0 ? (
        <p className="text-xs text-dim">{loaded ? 'no status reported' : 'loading…'}</p>
      ) : (
        <table className="w-full text-xs">
          <thead>
            <tr className="text-left text-dim">
              <th className="pr-2 font-normal">name</th>
              <th className="pr-2 font-normal">state</th>
              <th className="pr-2 font-normal">ready</th>
              <th className="font-normal">restarts</th>
            </tr>
          </thead>
          <tbody>
            {containers.map((c) => (
              <tr key={c.name} className="border-t border-line">
                <td className="py-1 pr-2 font-mono">{c.name}</td>
                <td className="py-1 pr-2" title={c.detail}>
                  {c.state}
                  {c.detail ? <span className="text-dim"> · {c.detail}</span> : null}
                </td>
                <td className="py-1 pr-2">{c.ready === undefined ? '—' : c.ready ? 'yes' : 'no'}</td>
                <td className="py-1 tabular-nums">{c.restarts ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

export function ClaimsCard({ claims }: { claims: ReturnType<typeof claimsOf> }) {
  return (
    <Card title="Volume claims">
      {claims.length === 0 ? (
        <p className="text-xs text-dim">none</p>
      ) : (
        <ul className="flex flex-col gap-1 text-xs">
          {claims.map((c) => (
            <li key={c.name} className="border-t border-line pt-1">
              <span className="font-mono">{c.name}</span>
              {c.detail && <span className="text-dim"> · {c.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
