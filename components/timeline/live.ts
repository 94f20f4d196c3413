'use client';
// Keeps the Timeline page live from the live channel's history topic (useLive).
import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

export function useHistoryLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useLive('history', cluster, (_keys, o) =>
    qc.invalidateQueries({ queryKey: trpc.history.timeline.pathKey() }, o),
  );
}
