'use client';
// The at-risk list, ranked by impact: what is at risk, why (typed kinds), the safe next action in
// words and what must hold first (each precondition met or not, in words and a sign), and the
// guarded action that carries it out (or, while it is not yet safe, the dialog that says why).
import Link from 'next/link';
import { PRECONDITION_LABEL, RISK_LABEL, nextActionText } from '@/lib/incident/text';
import type { AtRisk } from '@/lib/incident/types';
import { useNow } from '../console/clock';
import { GuardedFor } from './GuardedFor';
import type { IncidentData } from './live';
import { nodeHref, podHref, protectorHref, VOLUMES_HREF } from './links';

function What({ cluster, r }: { cluster: string; r: AtRisk }) {
  if (r.pod)
    return (
      <>
        <Link
          href={podHref(cluster, r.pod)}
          className="whitespace-nowrap font-mono text-info hover:underline"
        >
          {r.pod.namespace}/{r.pod.name}
        </Link>
        {r.pod.terminating && <span className="ml-1 text-xs">(Terminating)</span>}
        {r.node && (
          <span className="text-xs text-dim">
            {' '}
            on{' '}
            <Link href={nodeHref(r.node)} className="whitespace-nowrap font-mono text-info hover:underline">
              {r.node}
            </Link>
          </span>
        )}
      </>
    );
  if (r.protector)
    return (
      <Link
        href={protectorHref(r.protector)}
        className="whitespace-nowrap font-mono text-info hover:underline"
      >
        PodProtector {r.protector}
      </Link>
    );
  if (r.attachment)
    return (
      <span>
        <Link href={VOLUMES_HREF} className="whitespace-nowrap font-mono text-info hover:underline">
          volume {r.volumes.join(', ')}
        </Link>{' '}
        <span className="text-xs text-dim">
          (VolumeAttachment {r.attachment}) still attached to{' '}
          {r.node && (
            <Link href={nodeHref(r.node)} className="whitespace-nowrap font-mono text-info hover:underline">
              {r.node}
            </Link>
          )}
        </span>
      </span>
    );
  return <span>{r.id}</span>;
}

function Preconditions({ r }: { r: AtRisk }) {
  return (
    <ul className="text-xs" aria-label="Preconditions">
      {r.preconditions.map((p) => (
        <li key={`${p.code}/${p.subject ?? ''}`} data-met={p.met}>
          <span aria-hidden="true">{p.met ? '✓' : '✗'}</span> {PRECONDITION_LABEL[p.code]}:{' '}
          <span className={p.met ? '' : 'font-semibold'}>{p.met ? 'met' : 'not yet'}</span>
        </li>
      ))}
    </ul>
  );
}

function Row({
  cluster,
  r,
  rank,
  readOnly,
}: {
  cluster: string;
  r: AtRisk;
  rank: number;
  readOnly: boolean;
}) {
  const now = useNow(1000) || Date.now();
  return (
    <li className="flex flex-col gap-1 border-b border-line px-3 py-2" data-testid={`incident-risk-${r.id}`}>
      <div className="flex flex-wrap items-baseline gap-2">
        <span className="text-xs tabular-nums text-dim">#{rank}</span>
        <What cluster={cluster} r={r} />
        <span className="text-xs">{r.kinds.map((k) => RISK_LABEL[k]).join(' · ')}</span>
        {r.volumes.length > 0 && !r.attachment && (
          <Link href={VOLUMES_HREF} className="text-xs text-info hover:underline">
            volume{r.volumes.length === 1 ? '' : 's'} {r.volumes.join(', ')}
          </Link>
        )}
      </div>
      <p className="text-sm">
        <span className="font-medium">Safe next action:</span>{' '}
        <span data-testid="incident-next-action">{nextActionText(r.next, now)}</span>
      </p>
      <div className="flex flex-wrap items-start gap-3">
        <Preconditions r={r} />
        {r.guarded && <GuardedFor cluster={cluster} target={r.guarded} disabled={readOnly} />}
      </div>
    </li>
  );
}

export function AtRiskList({
  cluster,
  data,
  readOnly,
}: {
  cluster: string;
  data: IncidentData;
  readOnly: boolean;
}) {
  return (
    <section
      aria-labelledby="incident-at-risk-h"
      data-testid="incident-at-risk"
      className="border-t border-line"
    >
      <h2 id="incident-at-risk-h" className="px-3 pt-2 text-sm font-semibold">
        At risk ({data.atRisk.length + data.atRiskMore})
      </h2>
      {data.atRisk.length === 0 ? (
        <p className="px-3 py-2 text-sm text-dim">Nothing is at risk.</p>
      ) : (
        <ol>
          {data.atRisk.map((r, i) => (
            <Row key={r.id} cluster={cluster} r={r} rank={i + 1} readOnly={readOnly} />
          ))}
        </ol>
      )}
      {data.atRiskMore > 0 && (
        <p className="px-3 py-1 text-xs text-dim">and {data.atRiskMore} more, of lower impact</p>
      )}
    </section>
  );
}
