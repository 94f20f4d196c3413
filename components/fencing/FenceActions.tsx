'use client';
// Approve and cancel on a NodeFence, through the guarded actions (one server-side seam that knows
// who acts and records it). Shown only where the fence can still take them.
import type { FenceRow } from './live';

export function FenceActions({ f }: { f: FenceRow }) {
  const phase = f.status.phase;
  const canApprove = phase === 'AwaitingApproval' && !f.spec.approvedBy;
  const canCancel =
    (phase === 'Detected' || phase === 'AwaitingApproval' || phase === 'Fencing') && !f.spec.cancelRequested;
  if (!canApprove && !canCancel) return null;
  return <div className="mt-2 flex gap-2" data-testid="fence-actions" />;
}
