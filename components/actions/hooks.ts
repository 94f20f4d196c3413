'use client';
// Openers for views that hand an action out as a callback (the Volumes page's onDetach).
import { useCallback } from 'react';
import { useCluster } from '../console/cluster';
import { openGuardedAction } from './host';

/** (pv, attachment) => opens the guarded detach dialog for the selected cluster (needs the host). */
export function useDetachHandler(): (pv: string, attachment: string) => void {
  const { cluster } = useCluster();
  return useCallback(
    (_pv: string, attachment: string) => {
      if (cluster) openGuardedAction({ action: 'detachVolume', cluster, attachment });
    },
    [cluster],
  );
}
