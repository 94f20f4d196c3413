'use client';
// Approve and cancel on a NodeFence, through the guarded actions (one server-side seam that knows
// who acts and records it). Shown only where the fence can still take them: approval while it
// waits for one, cancel until an agent has run (and on a Failed fence, to record giving it up);
// pause (or resume) the fence's policy while the fence has not run an agent: the warning window;
// Fence now on a fence that failed or that a person cancelled (it holds the node until then).
import {
  ApproveFenceButton,
  CancelFenceButton,
  FenceNodeButton,
  PausePolicyButton,
} from '../actions/GuardedActionButtons';
import { cancelledByUser } from '../../lib/fencing/ended';
import { useCluster } from '../console/cluster';
import type { FenceRow } from './live';

export function FenceActions({ f }: { f: FenceRow }) {
  const { cluster, current } = useCluster();
  const phase = f.status.phase;
  const canApprove = phase === 'AwaitingApproval' && !f.spec.approvedBy;
  const canCancel =
    (phase === 'Detected' || phase === 'AwaitingApproval' || phase === 'Failed') && !f.spec.cancelRequested;
  const canPause = phase === 'Detected' || phase === 'AwaitingApproval';
  // a failed fence, or one a person cancelled, holds the node until someone fences it by hand
  const canFenceAgain = phase === 'Failed' || (phase === 'Cancelled' && cancelledByUser(f));
  if (!cluster || (!canApprove && !canCancel && !canPause && !canFenceAgain)) return null;
  const readOnly = current?.mode === 'read-only';
  return (
    <div className="mt-2 flex flex-wrap gap-2" data-testid="fence-actions">
      {canApprove && <ApproveFenceButton cluster={cluster} fence={f.name} disabled={readOnly} />}
      {canCancel && <CancelFenceButton cluster={cluster} fence={f.name} disabled={readOnly} />}
      {canFenceAgain && <FenceNodeButton cluster={cluster} node={f.spec.nodeName} disabled={readOnly} />}
      {canPause && (
        <PausePolicyButton cluster={cluster} policy={f.policy} paused={f.paused} disabled={readOnly} />
      )}
    </div>
  );
}
