'use client';
// The existing guarded-action buttons (components/actions) for an incident item's target: the
// dialog they open shows the live verdict and preconditions, and the seam decides again.
import type { GuardedTarget } from '@/lib/incident/types';
import {
  ApproveFenceButton,
  CancelFenceButton,
  DetachButton,
  FenceNodeButton,
  ForceDeleteButton,
  RemoveTaintButton,
} from '../actions/GuardedActionButtons';

export function GuardedFor({
  cluster,
  target,
  disabled,
}: {
  cluster: string;
  target: GuardedTarget;
  disabled?: boolean;
}) {
  switch (target.action) {
    case 'forceDeletePod':
      return (
        <ForceDeleteButton
          cluster={cluster}
          namespace={target.namespace}
          name={target.name}
          disabled={disabled}
        />
      );
    case 'approveFence':
      return <ApproveFenceButton cluster={cluster} fence={target.fence} disabled={disabled} />;
    case 'cancelFence':
      return <CancelFenceButton cluster={cluster} fence={target.fence} disabled={disabled} />;
    case 'fenceNode':
      return <FenceNodeButton cluster={cluster} node={target.node} disabled={disabled} />;
    case 'detachVolume':
      return <DetachButton cluster={cluster} attachment={target.attachment} disabled={disabled} />;
    case 'removeOutOfServiceTaint':
      return <RemoveTaintButton cluster={cluster} node={target.node} disabled={disabled} />;
  }
}
