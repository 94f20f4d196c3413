'use client';
// Keeps the Timeline page live: refetches history.timeline on each coalesced `history:changed`
// for the shown cluster, and after a reconnect (the history room, useRoomRefresh).
import { useQueryClient } from '@tanstack/react-query';
import { useRoomRefresh } from '../console/useRoomRefresh';
import { useTRPC } from '../console/trpc';

export function useHistoryLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useRoomRefresh(
    'history',
    cluster,
    () => void qc.invalidateQueries({ queryKey: trpc.history.timeline.pathKey() }),
  );
}
