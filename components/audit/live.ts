'use client';
// Keeps the Audit page live: refetches actions.audit on each coalesced `audit:changed` for the
// selected cluster, and after a reconnect (the audit room, useRoomRefresh).
import { useQueryClient } from '@tanstack/react-query';
import { useRoomRefresh } from '../console/useRoomRefresh';
import { useTRPC } from '../console/trpc';

export function useAuditLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useRoomRefresh(
    'audit',
    cluster,
    () => void qc.invalidateQueries({ queryKey: trpc.actions.audit.pathKey() }),
  );
}
