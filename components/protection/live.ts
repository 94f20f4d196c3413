'use client';
// Keeps the protection queries fresh from the live channel's protection topic (useLive), whose
// signals name the protectors that changed. Nothing polls.
import { useQueryClient } from '@tanstack/react-query';
import { useCluster } from '../console/cluster';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

export function useProtectionLive(): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { cluster } = useCluster();
  useLive('protection', cluster, (_keys, o) =>
    qc.invalidateQueries({ queryKey: trpc.protection.pathKey() }, o),
  );
}
