'use client';
// Remediation per failed node: fence phase (with the warning window's countdown), the
// out-of-service taint, the VolumeAttachments still naming the node, time in state, the next
// timeout and the next human step — with the guarded action for it where there is one.
import Link from 'next/link';
import { formatAge } from '@/lib/console/ui/format';
import { NODE_STATE_LABEL } from '@/lib/console/ui/states';
import { countdownText, humanStepText, secondsUntil } from '@/lib/incident/text';
import type { GuardedTarget, Remediation } from '@/lib/incident/types';
import { useNow } from '../console/clock';
import { FenceAllHeldButton } from '../fencing/FenceAllHeld';
import { useFencing } from '../fencing/live';
import { GuardedFor } from './GuardedFor';
import type { IncidentData } from './live';
import { FENCING_HREF, nodeHref, VOLUMES_HREF } from './links';

const TIMEOUT_LABEL = {
  'fence-at': 'fence starts',
  'fence-attempt': 'fence attempt times out',
  'force-detach': 'force detach',
};

function actionOf(r: Remediation): GuardedTarget | undefined {
  if (r.next.step === 'approve-fence') return { action: 'approveFence', fence: r.next.fence };
  if (r.next.step === 'remove-out-of-service-taint')
    return { action: 'removeOutOfServiceTaint', node: r.node };
  // the budget holds its fence, or its fence failed or was cancelled: a person may fence it now
  if (
    r.next.step === 'budget-holds-fence' ||
    (r.next.step === 'fence-manually' && r.next.why !== 'no-policy')
  )
    return { action: 'fenceNode', node: r.node };
  // the warning window: a Detected fence may be cancelled until it runs, an announced one at once
  if (r.fence?.phase === 'Detected') return { action: 'cancelFence', fence: r.fence.name };
  if (!r.fence && r.upcoming) return { action: 'cancelFence', fence: r.node };
  return undefined;
}

function Fence({ r, now }: { r: Remediation; now: number }) {
  const fenceAt = r.fence?.fenceAt ?? r.upcoming?.fenceAt;
  const counting = fenceAt !== undefined && (!r.fence || r.fence.phase === 'Detected');
  const paused = r.fence ? r.fence.paused && r.fence.phase === 'Detected' : r.upcoming?.paused;
  const policy = r.fence?.policy ?? r.upcoming?.policy;
  return (
    <>
      {r.fence ? (
        <Link href={FENCING_HREF} className="text-info hover:underline">
          NodeFence {r.fence.name}: {r.fence.phase}
        </Link>
      ) : r.upcoming ? (
        <Link href={FENCING_HREF} className="text-info hover:underline">
          policy {r.upcoming.policy}
        </Link>
      ) : (
        <span>no NodeFence</span>
      )}
      {r.fence?.held && (
        <span className="block text-xs">
          held:{' '}
          {
            { budget: 'by the budget', approval: 'for approval', paused: 'its policy is paused' }[
              r.fence.held
            ]
          }
        </span>
      )}
      {counting && (
        <span className="block text-xs font-semibold" data-testid="incident-fence-countdown">
          {countdownText(fenceAt, now, paused, policy)}
        </span>
      )}
    </>
  );
}

function Row({ cluster, r, readOnly }: { cluster: string; r: Remediation; readOnly: boolean }) {
  const now = useNow(1000) || Date.now();
  const action = actionOf(r);
  return (
    <tr className="border-b border-line align-top" data-testid={`incident-remediation-${r.node}`}>
      <th scope="row" className="whitespace-nowrap px-2 py-1 text-left font-mono font-normal">
        <Link href={nodeHref(r.node)} className="text-info hover:underline">
          {r.node}
        </Link>
      </th>
      <td className="px-2 py-1">{NODE_STATE_LABEL[r.state]}</td>
      <td className="px-2 py-1 tabular-nums">{r.since ? formatAge(now - r.since) : '—'}</td>
      <td className="px-2 py-1">
        <Fence r={r} now={now} />
      </td>
      <td className="px-2 py-1">{r.outOfService ? 'tainted' : 'no'}</td>
      <td className="px-2 py-1">
        {r.volumeAttachments.length === 0 ? (
          'none'
        ) : (
          <Link href={VOLUMES_HREF} className="text-info hover:underline">
            {r.volumeAttachments
              .map((a) => `${a.pv ?? a.name}${a.detaching ? ' (detaching)' : ''}`)
              .join(', ')}
          </Link>
        )}
      </td>
      <td className="px-2 py-1 tabular-nums">{r.pods}</td>
      <td className="px-2 py-1 text-xs">
        {r.nextTimeout
          ? `${TIMEOUT_LABEL[r.nextTimeout.kind]} in ${secondsUntil(r.nextTimeout.at, now)} s`
          : '—'}
      </td>
      <td className="px-2 py-1">
        <span className="font-medium" data-testid="incident-next-step">
          {humanStepText(r.node, r.next, now)}
        </span>
        {action && (
          <span className="ml-2">
            <GuardedFor cluster={cluster} target={action} disabled={readOnly} />
          </span>
        )}
      </td>
    </tr>
  );
}

export function RemediationTable({
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
      aria-labelledby="incident-remediation-h"
      data-testid="incident-remediation"
      className="border-t border-line"
    >
      <div className="flex flex-wrap items-center gap-2 px-3 pt-2">
        <h2 id="incident-remediation-h" className="text-sm font-semibold">
          Remediation per failed node ({data.remediation.length})
        </h2>
        <FenceAllHeld cluster={cluster} readOnly={readOnly} />
      </div>
      {data.remediation.length === 0 ? (
        <p className="px-3 py-2 text-sm text-dim">No node has failed.</p>
      ) : (
        <div className="overflow-x-auto px-1">
          <table className="w-full text-sm" aria-labelledby="incident-remediation-h">
            <thead className="text-left text-xs text-dim">
              <tr>
                {[
                  'Node',
                  'State',
                  'In state for',
                  'Fence',
                  'Out-of-service taint',
                  'VolumeAttachments',
                  'Pods',
                  'Next timeout',
                  'Next step',
                ].map((h) => (
                  <th key={h} scope="col" className="px-2 py-1 font-medium">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.remediation.map((r) => (
                <Row key={r.node} cluster={cluster} r={r} readOnly={readOnly} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The nodes the fencing budget holds, fenced at once (the Fencing page has the same button). */
function FenceAllHeld({ cluster, readOnly }: { cluster: string; readOnly: boolean }) {
  const { data } = useFencing();
  const held = data?.enabled ? data.held : [];
  return <FenceAllHeldButton cluster={cluster} held={held} disabled={readOnly} />;
}
