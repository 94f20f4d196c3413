'use client';
// Keeps the Audit page live from the live channel's audit topic (useLive).
import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

export function useAuditLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useLive('audit', cluster, (_keys, o) =>
    qc.invalidateQueries({ queryKey: trpc.actions.audit.pathKey() }, o),
  );
}
