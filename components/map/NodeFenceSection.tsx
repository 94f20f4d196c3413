'use client';
// The node panel's fencing: its NodeFence (phase, progress, what is happening) with the actions
// the fence can still take — Cancel, Approve, Pause policy, Fence now (FenceActions, the same as
// the Fencing page) — and, when the node has no NodeFence yet, the fence a policy announced for
// it, counting down, with Cancel and Pause at hand (issue 25: the panel had no button at all).
import Link from 'next/link';
import { CancelFenceButton, PausePolicyButton } from '../actions/GuardedActionButtons';
import { useCluster } from '../console/cluster';
import { FenceActions } from '../fencing/FenceActions';
import { type FenceRow, useAnnounced } from '../fencing/live';
import { PhaseBadge } from '../fencing/PhaseBadge';
import { Progress } from '../fencing/Progress';
import { FenceWarning } from '../fencing/Warning';

const WAITING = new Set(['Detected', 'AwaitingApproval']);

export function NodeFenceSection({ node, fence }: { node: string; fence?: FenceRow }) {
  const { byNode } = useAnnounced();
  const announced = byNode.get(node);
  // an announced fence with no live NodeFence: the node's next incident, not created yet
  const upcoming = announced && (!fence || !WAITING.has(fence.status.phase)) ? announced : undefined;
  if (!fence && !upcoming) return null;
  return (
    <section aria-label="Fencing" data-testid="node-panel-fence" className="rounded border border-line p-2">
      <h3 className="mb-1 flex items-center gap-2 text-xs font-semibold uppercase tracking-wide text-dim">
        Fencing {fence && !upcoming && <PhaseBadge phase={fence.status.phase} />}
        <Link href="/fencing" className="ml-auto normal-case text-info hover:underline">
          Fencing page
        </Link>
      </h3>
      {upcoming ? (
        <Upcoming node={node} fence={upcoming.fence} policy={upcoming.policy} />
      ) : (
        fence && (
          <>
            <Progress steps={fence.progress} failed={fence.status.phase === 'Failed'} />
            <p className="mt-1 text-xs">{fence.status.message}</p>
            <FenceWarning
              fenceAt={fence.fenceAt}
              paused={fence.paused}
              policy={fence.policy}
              phase={fence.status.phase}
              className="mt-1 block text-xs font-semibold text-warn"
              testId="node-panel-fence-warning"
            />
            <FenceActions f={fence} />
          </>
        )
      )}
    </section>
  );
}

function Upcoming({ node, fence, policy }: { node: string; fence: string; policy: string }) {
  const { cluster, current } = useCluster();
  const { byNode } = useAnnounced();
  const a = byNode.get(node);
  if (!cluster || !a) return null;
  const readOnly = current?.mode === 'read-only';
  return (
    <>
      <p className="text-xs">
        Policy <span className="font-mono">{policy}</span> announced a fence on {node}: its NodeFence is
        created once the node has been unhealthy for the policy's duration.
      </p>
      <FenceWarning
        fenceAt={a.fenceAt === undefined ? undefined : new Date(a.fenceAt).toISOString()}
        paused={a.paused}
        policy={policy}
        className="mt-1 block text-xs font-semibold text-warn"
        testId="node-panel-fence-warning"
      />
      <div className="mt-2 flex flex-wrap gap-2" data-testid="fence-actions">
        <CancelFenceButton cluster={cluster} fence={fence} disabled={readOnly} />
        <PausePolicyButton cluster={cluster} policy={policy} paused={a.paused} disabled={readOnly} />
      </div>
    </>
  );
}
