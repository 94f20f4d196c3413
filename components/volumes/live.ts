'use client';
// Keeps the volumes queries fresh from the live channel (useLive): the volumes topic, and the
// fencing topic too (a row names the fence on its node). Nothing polls — unless the server has no
// volumes feed (it never acknowledges the watch): then the caller refetches on a timer, and says so.
import { useQueryClient } from '@tanstack/react-query';
import { type LiveState, useLive } from '../console/useLive';
import { useFencingLive } from '../fencing/live';
import { useVolumesTRPC } from './api';

export type VolumesLiveState = LiveState;

export function useVolumesLive(cluster: string | undefined): VolumesLiveState {
  const trpc = useVolumesTRPC();
  const qc = useQueryClient();
  const refetch = (_keys: string[] | undefined, o: { cancelRefetch: boolean }) =>
    qc.invalidateQueries({ queryKey: trpc.volumes.pathKey() }, o);
  useFencingLive();
  useLive('fencing', cluster, refetch);
  return useLive('volumes', cluster, refetch);
}
