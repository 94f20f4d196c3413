'use client';
// Keeps the instance-IDs queries fresh from the live channel's instance-ids topic (useLive).
import { useQueryClient } from '@tanstack/react-query';
import { type LiveState, useLive } from '../console/useLive';
import { useInstanceIdsTRPC } from './api';

export type InstanceIdsLiveState = LiveState;

export function useInstanceIdsLive(cluster: string | undefined): InstanceIdsLiveState {
  const trpc = useInstanceIdsTRPC();
  const qc = useQueryClient();
  return useLive('instance-ids', cluster, (_keys, o) =>
    qc.invalidateQueries({ queryKey: trpc.instanceIds.pathKey() }, o),
  );
}
